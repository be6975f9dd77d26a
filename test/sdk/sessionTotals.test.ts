/**
 * What an Agent SDK program reads at the end of each turn and of the session, through the real
 * SDK: `total_cost_usd` and `modelUsage` are the session's running totals (the SDK documents
 * "read the latest result rather than summing"), `usage` stays the turn's own; a `/compact`
 * turn counts its summary request; a `/clear` starts new totals; and the host's SessionEnd
 * callback runs when the session ends, after the SDK closed stdin.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { costOf, priceFor } from '../../src/loop/pricing.js';
import { assertBuilt, promptsAfterResults, removeSandboxes, resultOf, runQuery } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const MODEL = 'claude-sonnet-4-5';
const answer = (text: string, usage: { input_tokens: number; output_tokens: number }) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }], usage });
const cost = (input: number, output: number) => costOf({ input_tokens: input, output_tokens: output }, priceFor(MODEL));

test('three turns in one process: total_cost_usd and modelUsage run on, usage and num_turns are per turn', async () => {
  const prompts = promptsAfterResults(['one?', 'two?', 'three?']);
  const { messages } = await runQuery(
    [answer('one', { input_tokens: 1000, output_tokens: 100 }), answer('two', { input_tokens: 2000, output_tokens: 200 }), answer('three', { input_tokens: 3000, output_tokens: 300 })],
    prompts.input,
    { model: MODEL },
    { onMessage: (m) => void (m.type === 'result' && prompts.resultSeen()) },
  );
  const results = resultOf(messages);
  expect(results).toHaveLength(3);
  const running = [cost(1000, 100), cost(1000, 100) + cost(2000, 200), cost(1000, 100) + cost(2000, 200) + cost(3000, 300)];
  expect(running[0]).toBeGreaterThan(0);
  results.forEach((r, i) => {
    expect(r.total_cost_usd).toBeCloseTo(running[i]!, 10);
    expect(r.usage.input_tokens).toBe((i + 1) * 1000);
    expect(r.usage.output_tokens).toBe((i + 1) * 100);
    expect(r.num_turns).toBe(1);
    expect(r.modelUsage[MODEL]).toMatchObject({ inputTokens: [1000, 3000, 6000][i], outputTokens: [100, 300, 600][i] });
    expect(r.modelUsage[MODEL]!.costUSD).toBeCloseTo(running[i]!, 10);
  });
}, 120_000);

test("/compact's result counts its summary request; /clear starts new totals", async () => {
  const prompts = promptsAfterResults(['one?', 'two?', '/compact', '/clear', 'three?']);
  const { messages, server } = await runQuery(
    [
      answer('one', { input_tokens: 1000, output_tokens: 100 }),
      answer('two', { input_tokens: 2000, output_tokens: 200 }),
      answer('SUMMARY', { input_tokens: 4000, output_tokens: 400 }),
      answer('three', { input_tokens: 500, output_tokens: 50 }),
    ],
    prompts.input,
    { model: MODEL },
    { onMessage: (m) => void (m.type === 'result' && prompts.resultSeen()) },
  );
  expect(server.requests).toHaveLength(4);
  const [, second, compacted, cleared, afterClear] = resultOf(messages);
  const beforeCompact = cost(1000, 100) + cost(2000, 200);
  expect(second!.total_cost_usd).toBeCloseTo(beforeCompact, 10);
  // The /compact turn: its own usage is the summary request's; the totals add its cost and tokens.
  expect(compacted).toMatchObject({ subtype: 'success', num_turns: 0 });
  expect(compacted!.usage).toMatchObject({ input_tokens: 4000, output_tokens: 400 });
  expect(compacted!.total_cost_usd).toBeCloseTo(beforeCompact + cost(4000, 400), 10);
  expect(compacted!.modelUsage[MODEL]).toMatchObject({ inputTokens: 7000, outputTokens: 700 });
  // /clear: a new session, nothing spent in it yet; the next turn counts only itself.
  expect(cleared).toMatchObject({ subtype: 'success', total_cost_usd: 0, modelUsage: {} });
  expect(afterClear!.total_cost_usd).toBeCloseTo(cost(500, 50), 10);
  expect(afterClear!.modelUsage[MODEL]).toMatchObject({ inputTokens: 500, outputTokens: 50 });
}, 120_000);

test("the host's SessionEnd callback runs when the session ends (reason other), after the SDK closed stdin", async () => {
  let seen: (input: unknown) => void = () => {};
  const sessionEnd = new Promise<unknown>((resolve) => (seen = resolve));
  const { messages, stderr } = await runQuery([answer('done', { input_tokens: 10, output_tokens: 1 })], 'hello', {
    hooks: { SessionEnd: [{ hooks: [async (input) => (seen(input), {})] }] },
  });
  expect(resultOf(messages)).toEqual([expect.objectContaining({ subtype: 'success', result: 'done' })]);
  // The callback is the host's own code: wait for it, not for a time.
  expect(await sessionEnd).toMatchObject({ hook_event_name: 'SessionEnd', reason: 'other', session_id: messages[0]!.session_id });
  expect(stderr).not.toContain('cannot answer');
}, 60_000);
