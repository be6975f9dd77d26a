/**
 * The session's spending through the SDK's control request `get_usage`
 * (`query.usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET()`): the same running totals
 * the `result` lines carry, the API time of every turn, and the lines the file edits added and
 * removed; and a resumed session's totals go on from its transcript's instead of starting at 0.
 */
import ts from 'typescript';
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { SDKControlGetUsageResponse } from '@anthropic-ai/claude-agent-sdk';
import { costOf, priceFor } from '../../src/loop/pricing.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { makeSandbox } from '../cli/helpers.js';
import { isResult, responseTo, startStreamHost, userLine as streamUserLine } from '../cli/streamHost.js';
import { strictDiagnostics } from './compileSource.js';
import { assertBuilt, removeSandboxes, resultOf, runQuery, userMessage } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const MODEL = 'claude-sonnet-4-5';
type Usage = { input_tokens: number; output_tokens: number };
const text = (t: string, usage: Usage) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text: t }], usage });
const tool = (name: string, input: Record<string, unknown>, usage: Usage) => ({ kind: 'message' as const, blocks: [{ type: 'tool_use' as const, name, input }], usage });
const cost = (input: number, output: number) => costOf({ input_tokens: input, output_tokens: output }, priceFor(MODEL));

/**
 * Streaming input held open as a chat front end holds it: each prompt after the previous turn's
 * result was handled, and the input ends only after the last one's (the SDK closes the engine's
 * stdin when the input ends, and a control request needs it open).
 */
function heldPrompts(prompts: readonly string[]) {
  const handled: Array<() => void> = [];
  const waits = prompts.map(() => new Promise<void>((resolve) => handled.push(resolve)));
  let seen = 0;
  return {
    input: (async function* () {
      for (let i = 0; i < prompts.length; i++) {
        yield userMessage(prompts[i]!);
        await waits[i];
      }
    })(),
    resultHandled: () => handled[seen++]?.(),
  };
}

test('get_usage answers the running totals, the API time and the lines the edits changed', async () => {
  const prompts = heldPrompts(['write it', 'edit it']);
  const usages: SDKControlGetUsageResponse[] = [];
  const { messages } = await runQuery(
    [
      tool('Write', { file_path: 'notes.txt', content: 'a\nb\nc\n' }, { input_tokens: 1000, output_tokens: 100 }),
      text('written', { input_tokens: 1100, output_tokens: 10 }),
      tool('Edit', { file_path: 'notes.txt', old_string: 'b\n', new_string: 'B\nC\n' }, { input_tokens: 2000, output_tokens: 200 }),
      text('edited', { input_tokens: 2100, output_tokens: 20 }),
    ],
    prompts.input,
    { model: MODEL, permissionMode: 'acceptEdits' },
    {
      onMessage: async (m, q) => {
        if (m.type !== 'result') return;
        usages.push(await q.usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET());
        prompts.resultHandled();
      },
    },
  );
  const results = resultOf(messages);
  expect(results.map((r) => r.subtype)).toEqual(['success', 'success']);
  expect(usages).toHaveLength(2);
  const [afterWrite, afterEdit] = usages as [SDKControlGetUsageResponse, SDKControlGetUsageResponse];
  expect(afterWrite.session).toMatchObject({ total_lines_added: 3, total_lines_removed: 0 });
  expect(afterEdit.session).toMatchObject({ total_lines_added: 5, total_lines_removed: 1 });
  // The same totals as the latest result line, which the SDK says to read instead of summing.
  results.forEach((r, i) => {
    const u = usages[i]!;
    expect(u.session.total_cost_usd).toBeCloseTo(r.total_cost_usd, 12);
    expect(u.session.model_usage).toEqual(r.modelUsage);
  });
  expect(afterEdit.session.total_cost_usd).toBeCloseTo(cost(1000, 100) + cost(1100, 10) + cost(2000, 200) + cost(2100, 20), 12);
  expect(afterEdit.session.total_api_duration_ms).toBe(results[0]!.duration_api_ms + results[1]!.duration_api_ms);
  expect(afterEdit.session.total_duration_ms).toBeGreaterThanOrEqual(afterEdit.session.total_api_duration_ms);
  // An API-key session: no claude.ai plan, so no rate-limit windows (as Claude Code answers).
  expect(afterEdit).toMatchObject({ subscription_type: null, rate_limits_available: false, rate_limits: null, behaviors: null });
  // The answer as it came is the SDK's type (excess properties are errors too).
  const source = `import type { SDKControlGetUsageResponse } from '@anthropic-ai/claude-agent-sdk';\nexport const answer = ${JSON.stringify(afterEdit)} satisfies SDKControlGetUsageResponse;`;
  expect(strictDiagnostics(source).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
}, 120_000);

test("a resumed session's totals start from its transcript's, not from 0", async () => {
  const sandbox = makeSandbox();
  const prompts = heldPrompts(['one?', 'two?']);
  const first = await runQuery([text('one', { input_tokens: 1000, output_tokens: 100 }), text('two', { input_tokens: 2000, output_tokens: 200 })], prompts.input, { model: MODEL }, {
    sandbox,
    onMessage: (m) => void (m.type === 'result' && prompts.resultHandled()),
  });
  const before = resultOf(first.messages)[1]!;
  expect(before.total_cost_usd).toBeCloseTo(cost(1000, 100) + cost(2000, 200), 12);

  let usage: SDKControlGetUsageResponse | undefined;
  const third = heldPrompts(['three?']);
  const second = await runQuery([text('three', { input_tokens: 3000, output_tokens: 300 })], third.input, { model: MODEL, resume: before.session_id }, {
    sandbox,
    onMessage: async (m, q) => {
      if (m.type !== 'result') return;
      usage = await q.usage_EXPERIMENTAL_MAY_CHANGE_DO_NOT_RELY_ON_THIS_API_YET();
      third.resultHandled();
    },
  });
  const after = resultOf(second.messages)[0]!;
  expect(after).toMatchObject({ subtype: 'success', session_id: before.session_id });
  expect(after.total_cost_usd).toBeCloseTo(before.total_cost_usd + cost(3000, 300), 12);
  expect(after.modelUsage[MODEL]).toMatchObject({ inputTokens: 6000, outputTokens: 600 });
  expect(usage?.session.total_cost_usd).toBeCloseTo(after.total_cost_usd, 12);
  expect(usage?.session.model_usage).toEqual(after.modelUsage);
}, 120_000);

test('get_session_cost (in the union, sent by no SDK method): the /cost report of the same totals', async () => {
  const server = await startScriptedServer({ script: [text('one', { input_tokens: 1000, output_tokens: 100 })] });
  const host = startStreamHost(['--model', MODEL], { ...makeSandbox(), baseURL: server.baseURL });
  try {
    host.send(streamUserLine('one?'));
    await host.waitFor(isResult, 'the result');
    host.send({ type: 'control_request', request_id: 'cost-1', request: { subtype: 'get_session_cost' } });
    const answer = (await host.waitFor(responseTo('cost-1'), 'the get_session_cost answer'))['response'] as { subtype: string; response: { text: string } };
    expect(answer.subtype).toBe('success');
    expect(answer.response.text).toContain(`$${cost(1000, 100).toFixed(4)}`);
    expect(answer.response.text).toMatch(/1,000 input, 100 output/);
    host.end();
    expect((await host.done).code).toBe(0);
  } finally {
    host.end();
    await server.close();
  }
}, 60_000);
