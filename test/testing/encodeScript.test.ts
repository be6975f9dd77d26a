import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { streamEventSchemas, type StreamEvent } from '../../src/protocol/events.js';
import {
  encodeSSE,
  planScriptedStream,
  scriptedMessageToEvents,
  scriptedMessageToJson,
  splitText,
  type ScriptedMessage,
} from '../../src/testing/index.js';

const deltas = (events: StreamEvent[], index: number): string[] =>
  events.flatMap((e) => {
    if (e.type !== 'content_block_delta' || e.index !== index) return [];
    const d = e.delta;
    return d.type === 'text_delta' ? [d.text] : d.type === 'thinking_delta' ? [d.thinking] : d.type === 'input_json_delta' ? [d.partial_json] : [];
  });

describe('scriptedMessageToEvents', () => {
  const msg: ScriptedMessage = {
    kind: 'message',
    blocks: [
      { type: 'thinking', thinking: 'hmm, yes', chunkSize: 3, delayMs: 5, deltaDelayMs: 2, stopDelayMs: 7 },
      { type: 'redacted_thinking', data: 'opaque' },
      { type: 'text', text: 'answer', chunkSize: 4 },
      { type: 'tool_use', name: 'Read', input: { path: 'x' }, chunkSize: 5 },
    ],
    endDelayMs: 11,
  };
  const timed = scriptedMessageToEvents(msg, { responseIndex: 3, model: 'm1', inputTokens: 42 });
  const events = timed.map((t) => t.event);

  it('produces events the protocol schema accepts, in API order', () => {
    for (const e of events) expect(streamEventSchemas().streamEventSchema.safeParse(e).success).toBe(true);
    expect(events[0]!.type).toBe('message_start');
    expect(events.slice(-2).map((e) => e.type)).toEqual(['message_delta', 'message_stop']);
  });

  it('uses deterministic default ids, the given model, and tool_use as default stop reason', () => {
    const start = events[0] as Extract<StreamEvent, { type: 'message_start' }>;
    expect(start.message.id).toBe('msg_scripted_3');
    expect(start.message.model).toBe('m1');
    expect(start.message.usage.input_tokens).toBe(42);
    const toolStart = events.find((e) => e.type === 'content_block_start' && e.index === 3);
    expect(toolStart).toMatchObject({ content_block: { type: 'tool_use', id: 'toolu_scripted_3_3', name: 'Read', input: {} } });
    expect(events.at(-2)).toMatchObject({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null } });
  });

  it('splits text, thinking and tool input by chunkSize, and signs thinking', () => {
    expect(deltas(events, 0)).toEqual(['hmm', ', y', 'es']);
    expect(deltas(events, 1)).toEqual([]);
    expect(deltas(events, 2)).toEqual(['answ', 'er']);
    expect(deltas(events, 3).join('')).toBe('{"path":"x"}');
    expect(deltas(events, 3).every((d) => d.length <= 5)).toBe(true);
    expect(events).toContainEqual({ type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig_scripted_3_0' } });
    expect(events).toContainEqual({ type: 'content_block_start', index: 1, content_block: { type: 'redacted_thinking', data: 'opaque' } });
  });

  it('puts each delay before its event', () => {
    const delayOf = (pred: (e: StreamEvent) => boolean) => timed.filter((t) => pred(t.event)).map((t) => t.delayMs);
    expect(delayOf((e) => e.type === 'content_block_start' && e.index === 0)).toEqual([5]);
    expect(delayOf((e) => e.type === 'content_block_delta' && e.index === 0)).toEqual([2, 2, 2, 2]);
    expect(delayOf((e) => e.type === 'content_block_stop' && e.index === 0)).toEqual([7]);
    expect(delayOf((e) => e.type === 'message_delta')).toEqual([11]);
    expect(delayOf((e) => e.type === 'message_stop')).toEqual([0]);
  });

  it('defaults to end_turn without tool_use and honours explicit stop reason, usage and rawInput', () => {
    const plain = scriptedMessageToEvents({ kind: 'message', blocks: [{ type: 'text', text: 'hi' }] });
    expect(plain.at(-2)!.event).toMatchObject({ delta: { stop_reason: 'end_turn' } });
    const usage = { input_tokens: 7, output_tokens: 9 };
    const custom = scriptedMessageToEvents({
      kind: 'message',
      blocks: [{ type: 'tool_use', id: 'tu', name: 'T', input: { a: 1 }, rawInput: '{"a": tru' }],
      stopReason: 'max_tokens',
      usage,
    }).map((t) => t.event);
    expect(custom.at(-2)).toEqual({ type: 'message_delta', delta: { stop_reason: 'max_tokens', stop_sequence: null }, usage });
    expect(deltas(custom, 0)).toEqual(['{"a": tru']);
  });
});

describe('planScriptedStream', () => {
  const msg: ScriptedMessage = { kind: 'message', blocks: [{ type: 'text', text: 'abc', chunkSize: 1 }] };
  const full = scriptedMessageToEvents(msg).map((t) => t.event.type);

  it('plays everything and ends without faults', () => {
    const plan = planScriptedStream(msg);
    expect(plan.ending).toBe('end');
    expect(plan.events.map((t) => t.event.type)).toEqual(full);
  });

  it('applies each fault', () => {
    expect(planScriptedStream({ ...msg, omitMessageStop: true }).events.map((t) => t.event.type)).toEqual(full.slice(0, -1));
    const cut = planScriptedStream({ ...msg, cutAfterEvents: 2 });
    expect([cut.ending, cut.events.length]).toEqual(['destroy', 2]);
    const stall = planScriptedStream({ ...msg, stallAfterEvents: 4 });
    expect([stall.ending, stall.events.length]).toEqual(['stall', 4]);
    const err = planScriptedStream({ ...msg, errorAfterEvents: { events: 3, type: 'api_error', message: 'x' } });
    expect(err.ending).toBe('end');
    expect(err.events.map((t) => t.event.type)).toEqual([...full.slice(0, 3), 'error']);
  });

  it('the earliest of several faults wins', () => {
    const plan = planScriptedStream({ ...msg, stallAfterEvents: 1, cutAfterEvents: 3 });
    expect([plan.ending, plan.events.length]).toEqual(['stall', 1]);
  });
});

describe('scriptedMessageToJson', () => {
  it('assembles the same content the events carry', () => {
    const json = scriptedMessageToJson(
      { kind: 'message', blocks: [{ type: 'thinking', thinking: 't', signature: 'S' }, { type: 'tool_use', name: 'T', rawInput: '{"a":1}' }] },
      { responseIndex: 2 },
    );
    expect(json.content).toEqual([
      { type: 'thinking', thinking: 't', signature: 'S' },
      { type: 'tool_use', id: 'toolu_scripted_2_1', name: 'T', input: { a: 1 } },
    ]);
    expect(json.stop_reason).toBe('tool_use');
  });

  it('throws a clear error for a rawInput that is not a JSON object', () => {
    expect(() => scriptedMessageToJson({ kind: 'message', blocks: [{ type: 'tool_use', name: 'T', rawInput: '[1]' }] })).toThrow(/not a JSON object/);
  });
});

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

describe('splitText and encodeSSE', () => {
  it('never splits a surrogate pair and always reassembles', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), fc.integer({ min: 1, max: 6 }), (text, size) => {
        const pieces = splitText(text, size);
        expect(pieces.join('')).toBe(text);
        for (const p of pieces) {
          expect(p.length).toBeGreaterThan(0);
          expect(p).not.toMatch(LONE_SURROGATE);
        }
      }),
    );
  });

  it('rejects a chunkSize that is not a positive integer', () => {
    expect(() => splitText('abc', 0)).toThrow(RangeError);
  });

  it('frames one event', () => {
    expect(encodeSSE({ type: 'ping' })).toBe('event: ping\ndata: {"type":"ping"}\n\n');
  });
});
