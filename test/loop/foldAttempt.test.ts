/** The pure fold of one model attempt: a table of inputs and what each leaves and emits. */
import { describe, expect, it } from 'vitest';
import type { AssemblyOutput } from '../../src/assembly/types.js';
import type { AssistantMessage, ToolUseBlock } from '../../src/protocol/content.js';
import { foldAttempt, newAttempt, repeatVerdict, type Attempt, type FoldEnv } from '../../src/loop/foldAttempt.js';
import type { LoopState } from '../../src/loop/types.js';
import type { ToolEvent } from '../../src/tools/types.js';
import { loopStateOf } from './helpers.js';

const state: LoopState = loopStateOf();
let ids = 0;
const env: FoldEnv = { newId: () => `id${++ids}`, prices: {}, repeatedToolCallLimit: 2, interactive: false };
const use = (id: string, input: Record<string, unknown> = {}): ToolUseBlock => ({ type: 'tool_use', id, name: 'Read', input });
const block = (b: ToolUseBlock): AssemblyOutput => ({ type: 'block', index: 0, block: b });
const result = (id: string, extra: Partial<Extract<ToolEvent, { type: 'tool_result' }>> = {}): ToolEvent => ({
  type: 'tool_result',
  toolUseId: id,
  name: 'Read',
  result: { type: 'tool_result', tool_use_id: id, content: 'ok' },
  endsTurn: false,
  durationMs: 3,
  ...extra,
});
const fold = (inputs: readonly (AssemblyOutput | ToolEvent)[], start: Attempt = newAttempt(state)) => {
  let attempt = start;
  const types: string[][] = [];
  for (const input of inputs) {
    const step = foldAttempt(attempt, input, env);
    attempt = step.attempt;
    types.push(step.events.map((e) => e.type));
  }
  return { attempt, types };
};

describe('foldAttempt', () => {
  it.each([
    ['text_delta', { type: 'text_delta', index: 0, text: 'hi' }, ['model']],
    ['block_start', { type: 'block_start', index: 0, block: { type: 'text', text: '' } }, ['model']],
    ['message_start', { type: 'message_start', id: 'msg', model: 'm', usage: {} }, ['model']],
    ['tool_start', { type: 'tool_start', toolUseId: 't', name: 'Read', input: {} }, ['tool_start']],
    ['tool_progress', { type: 'tool_progress', toolUseId: 't', name: 'Read', data: 1 }, ['tool_progress']],
    ['tool_batch', { type: 'tool_batch', results: [], endsTurn: false, shared: {} }, []],
  ] as const)('%s: emits %j', (_name, input, expected) => {
    expect(fold([input as unknown as AssemblyOutput | ToolEvent]).types).toEqual([expected]);
  });

  it('leaves its input untouched (pure): a fold step returns new data', () => {
    const start = newAttempt(state);
    const { attempt } = fold([block(use('t1'))], start);
    expect(start.toolUses).toEqual([]);
    expect(attempt.toolUses).toEqual([use('t1')]);
  });

  it('a message adds usage and cost to the state and names the message', () => {
    const message: AssistantMessage = { id: 'm1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'done' }], stop_reason: 'end_turn', usage: { input_tokens: 10, output_tokens: 5 } };
    const { attempt, types } = fold([{ type: 'message', message } as AssemblyOutput]);
    expect(types).toEqual([['assistant_message']]);
    expect(attempt.state.usage.outputTokens).toBe(5);
    expect(attempt.state.lastAssistantText).toBe('done');
    expect(attempt.state.lastUsageCovers).toBe(2);
    expect(attempt.message).toBe(message);
    expect(attempt.messageUuid).toBeDefined();
  });

  it('an identical repeated call from the limit on is refused: a warning and an error result, no run', () => {
    const { attempt, types } = fold([block(use('t1', { p: 1 })), block(use('t2', { p: 1 }))]);
    expect(types).toEqual([['model'], ['model', 'warning', 'tool_result']]);
    expect(attempt.refused.get('t2')?.is_error).toBe(true);
    expect(attempt.results.get('t2')).toBe(attempt.refused.get('t2'));
    expect(attempt.state.repeatedCall?.count).toBe(2);
    // The batch gets the refused result back in tool_use order.
    const batched = foldAttempt(attempt, { type: 'tool_batch', results: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }], endsTurn: false, shared: {} }, env);
    expect(batched.attempt.batch?.results.map((r) => r.tool_use_id)).toEqual(['t1', 't2']);
  });

  it('repeatVerdict: off at limit 0, a new signature restarts the run', () => {
    expect(repeatVerdict(undefined, use('a'), 0)).toBeUndefined();
    const first = repeatVerdict(undefined, use('a', { x: 1 }), 2)!;
    expect(first).toEqual({ run: { signature: expect.any(String), count: 1 }, refused: false });
    expect(repeatVerdict(first.run, use('b', { x: 1 }), 2)).toMatchObject({ run: { count: 2 }, refused: true });
    expect(repeatVerdict(first.run, use('c', { x: 2 }), 2)).toMatchObject({ run: { count: 1 }, refused: false });
  });

  it('tool results: recorded; an accepted deferral emits nothing, an ignored one warns first', () => {
    expect(fold([result('t1')]).attempt.results.has('t1')).toBe(true);
    expect(fold([result('t1', { deferral: { accepted: true } })]).types).toEqual([[]]);
    expect(fold([result('t1', { deferral: { accepted: false } })]).types).toEqual([['warning', 'tool_result']]);
  });

  it('stream_retry starts a fresh attempt on the same state', () => {
    const { attempt } = fold([block(use('t1')), { type: 'stream_retry', attempt: 1, error: 'cut' } as unknown as AssemblyOutput]);
    expect(attempt.toolUses).toEqual([]);
    expect(attempt.state.repeatedCall?.count).toBe(1);
  });
});
