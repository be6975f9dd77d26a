/**
 * The assembled message: the usual one (a head of exactly id, type, role, model and no
 * message_delta extras) is built as a literal; every other one by spreading. Both give the same
 * keys in the same order as the spread did for every message.
 */
import { describe, expect, it } from 'vitest';
import { applyEvent, createAssemblyState } from '../../src/assembly/reducer.js';
import type { AssistantMessage } from '../../src/protocol/content.js';
import type { StreamEvent } from '../../src/protocol/events.js';
import { blockStop, messageDelta, messageStart, messageStop, text, textStart } from './events.js';

function assembled(events: readonly StreamEvent[]): AssistantMessage {
  const state = createAssemblyState();
  let message: AssistantMessage | undefined;
  for (const event of events) for (const out of applyEvent(state, event).emitted) if (out.type === 'message') message = out.message;
  if (!message) throw new Error('no message');
  return message;
}

/** What the message was before the literal: the head spread, then the assembly's fields. */
function spreadOf(start: StreamEvent, extras: Record<string, unknown>, rest: Omit<AssistantMessage, 'id' | 'type' | 'role' | 'model'>): Record<string, unknown> {
  if (start.type !== 'message_start') throw new Error('not a message_start');
  const { content: _c, stop_reason: _r, stop_sequence: _s, usage: _u, ...head } = start.message;
  return { ...head, content: rest.content, stop_reason: rest.stop_reason, stop_sequence: rest.stop_sequence, ...extras, usage: rest.usage };
}

const body = [textStart(0), text(0, 'hi'), blockStop(0)];

describe('the assembled message', () => {
  it('the usual head: the same keys, values and order as the spread', () => {
    const start = messageStart();
    const message = assembled([start, ...body, messageDelta('end_turn'), messageStop]);
    const expected = spreadOf(start, {}, message);
    expect(message).toStrictEqual(expected);
    expect(Object.keys(message)).toEqual(['id', 'type', 'role', 'model', 'content', 'stop_reason', 'stop_sequence', 'usage']);
    expect(message).toMatchObject({ id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-test', stop_reason: 'end_turn', content: [{ type: 'text', text: 'hi' }] });
  });

  it('a head with a field of its own keeps it, in its place', () => {
    const start = messageStart();
    if (start.type !== 'message_start') throw new Error('not a message_start');
    const withField = { ...start, message: { ...start.message, service_tier: 'standard' } } as StreamEvent;
    const message = assembled([withField, ...body, messageDelta('end_turn'), messageStop]);
    expect(Object.keys(message)).toEqual(['id', 'type', 'role', 'model', 'service_tier', 'content', 'stop_reason', 'stop_sequence', 'usage']);
    expect(message).toStrictEqual(spreadOf(withField, {}, message));
  });

  it('a head in another order keeps that order', () => {
    const start = messageStart();
    if (start.type !== 'message_start') throw new Error('not a message_start');
    const { id, type, role, model, ...rest } = start.message;
    const reordered = { type: 'message_start', message: { type, id, role, model, ...rest } } as StreamEvent;
    const message = assembled([reordered, ...body, messageDelta('end_turn'), messageStop]);
    expect(Object.keys(message).slice(0, 4)).toEqual(['type', 'id', 'role', 'model']);
  });

  it("message_delta extras (container) go before usage, as before", () => {
    const start = messageStart();
    const delta = { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null, container: { id: 'ctr', expires_at: 'x' } }, usage: { output_tokens: 3 } } as StreamEvent;
    const message = assembled([start, ...body, delta, messageStop]);
    expect(Object.keys(message)).toEqual(['id', 'type', 'role', 'model', 'content', 'stop_reason', 'stop_sequence', 'container', 'usage']);
    expect(message).toStrictEqual(spreadOf(start, { container: { id: 'ctr', expires_at: 'x' } }, message));
  });
});
