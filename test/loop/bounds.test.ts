/**
 * Each bound of the recovery ladder (SPEC §5) against an endless failure script: the number of
 * model calls equals the bound exactly. In-process synchronous fake model.
 */
import { describe, expect, it } from 'vitest';
import { of } from 'rxjs';
import { z } from 'zod';
import type { AgentLoopOptions } from '../../src/loop/options.js';
import type { ContextGovernor } from '../../src/loop/seams.js';
import { ApiError } from '../../src/errors.js';
import { defineTool } from '../../src/tools/defineTool.js';
import { message, runSync, terminals, text, toolUse, transitions, type FakeStep } from './helpers.js';
import type { MessagesRequest } from '../../src/protocol/request.js';

async function run(script: (n: number, request: MessagesRequest) => FakeStep, options: Partial<AgentLoopOptions> = {}) {
  const r = await runSync(script, options);
  expect(terminals(r.events)).toHaveLength(1);
  expect(r.terminal.type).toBe('terminal');
  return { events: r.events, terminal: r.terminal, calls: r.requests.length, requests: r.requests };
}

const tooLong = () => ({ kind: 'error' as const, error: new ApiError(400, 'invalid_request_error', 'prompt is too long', false) });
const compactingGovernor = (counter: { n: number }): ContextGovernor => ({
  beforeCall: (input) => of({ type: 'ok', messages: input.messages }),
  reactiveCompact: (input) => {
    counter.n++;
    return of({ type: 'compacted', messages: input.messages, boundary: { trigger: 'reactive', preTokens: 2, postTokens: 1 } });
  },
});

describe('recovery bounds', () => {
  it('max_tokens: 3 recovery requests (4 calls), then model_error', async () => {
    const r = await run(() => message([text('cut ')], { stopReason: 'max_tokens' }));
    expect(r.calls).toBe(4);
    expect(r.terminal.reason).toBe('model_error');
    expect(transitions(r.events)).toEqual(['max_output_tokens_recovery', 'max_output_tokens_recovery', 'max_output_tokens_recovery']);
    // Each recovery keeps the truncated text and adds a hidden continuation message.
    const last = r.requests[3]!.messages;
    expect(last.at(-2)).toMatchObject({ role: 'assistant', content: [{ type: 'text', text: 'cut ' }] });
    const hidden = r.events.filter((e) => e.type === 'user_message' && e.reason === 'continuation');
    expect(hidden).toHaveLength(3);
    expect(hidden.every((e) => e.type === 'user_message' && e.isMeta === true)).toBe(true);
  });

  it('max_tokens counter resets after a tool batch', async () => {
    const r = await run((n) => (n === 3 ? message([toolUse('echo', { x: 'a' })]) : message([text('cut')], { stopReason: 'max_tokens' })));
    expect(r.calls).toBe(8);
    expect(r.terminal.reason).toBe('model_error');
  });

  it('malformed tool use: 1 retry (2 calls), then malformed_tool_use_exhausted', async () => {
    const r = await run(() => message([text('calling')], { stopReason: 'tool_use' }));
    expect(r.calls).toBe(2);
    expect(r.terminal.reason).toBe('malformed_tool_use_exhausted');
    expect(transitions(r.events)).toEqual(['malformed_tool_use_retry']);
  });

  it('thinking-only: 1 nudge (2 calls), the reply dropped from history, then accepted', async () => {
    const r = await run(() => message([{ type: 'thinking', thinking: 'hmm', signature: 'sig' }]));
    expect(r.calls).toBe(2);
    expect(r.terminal.reason).toBe('completed');
    expect(transitions(r.events)).toEqual(['thinking_only_nudge']);
    const second = r.requests[1]!.messages;
    expect(second).toHaveLength(1); // the thinking-only reply is not replayed
    expect(JSON.stringify(second[0])).toContain('visible text');
  });

  it('Stop hook always blocking: 8 re-entries (9 calls, 9 hook calls), then completed with a warning', async () => {
    let hookCalls = 0;
    const r = await run(() => message([text('done')]), {
      hooks: {
        stop: () => {
          hookCalls++;
          return { block: 'not yet' };
        },
      },
    });
    expect(r.calls).toBe(9);
    expect(hookCalls).toBe(9);
    expect(r.terminal.reason).toBe('completed');
    expect(r.terminal.turnCount).toBe(9);
    expect(r.events.filter((e) => e.type === 'warning')).toHaveLength(1);
  });

  it('Stop hooks never run after an API error', async () => {
    let hookCalls = 0;
    const r = await run(() => ({ kind: 'error', error: new ApiError(500, 'api_error', 'x', false) }), {
      hooks: { stop: () => (hookCalls++, {}) },
    });
    expect(r.terminal.reason).toBe('api_error');
    expect(hookCalls).toBe(0);
  });

  it('prompt too long: one reactive compaction (2 calls), then prompt_too_long', async () => {
    const counter = { n: 0 };
    const r = await run(tooLong, { contextGovernor: compactingGovernor(counter) });
    expect(r.calls).toBe(2);
    expect(counter.n).toBe(1);
    expect(r.terminal.reason).toBe('prompt_too_long');
  });

  it('the reactive-compaction flag survives a Stop-hook re-entry', async () => {
    const counter = { n: 0 };
    let hookCalls = 0;
    const r = await run((n) => (n === 1 ? message([text('ok')]) : tooLong()), {
      contextGovernor: compactingGovernor(counter),
      hooks: { stop: () => (++hookCalls === 1 ? { block: 'again' } : {}) },
    });
    expect(r.calls).toBe(3);
    expect(counter.n).toBe(1);
    expect(r.terminal.reason).toBe('prompt_too_long');
  });

  it('maxTurns bounds an endless tool script', async () => {
    const r = await run(() => message([toolUse('echo', { x: 'a' })]), { maxTurns: 5 });
    expect(r.calls).toBe(5);
    expect(r.terminal.reason).toBe('max_turns');
    expect(r.terminal.turnCount).toBe(5);
  });

  it('without a governor, prompt too long ends at once (1 call)', async () => {
    const r = await run(tooLong);
    expect(r.calls).toBe(1);
    expect(r.terminal.reason).toBe('prompt_too_long');
  });

  it('identical consecutive tool calls: the third is not run, the model is told it repeats itself', async () => {
    let runs = 0;
    const counting = defineTool({
      name: 'echo',
      description: 'Echoes',
      inputSchema: z.strictObject({ x: z.string() }),
      isConcurrencySafe: true,
      call: (input: { x: string }) => (runs++, input.x),
    });
    // Calls 0-3 repeat {x:'a'}; call 4 changes the input (the count starts again); then an answer.
    const r = await run((n) => (n < 4 ? message([toolUse('echo', { x: 'a' })]) : n === 4 ? message([toolUse('echo', { x: 'b' })]) : message([text('ok')])), {
      tools: [counting],
    });
    expect(r.calls).toBe(6);
    expect(runs).toBe(3); // a, a, (a refused), (a refused), b
    const warnings = r.events.filter((e) => e.type === 'warning');
    expect(warnings).toHaveLength(2);
    const third = r.requests[3]!.messages.at(-1)!;
    expect(third).toMatchObject({ role: 'user', content: [{ type: 'tool_result', is_error: true }] });
    expect(JSON.stringify(third)).toContain('same input');
    expect(r.terminal.reason).toBe('completed');
  });
});
