/**
 * Claude Code's reporting built-ins sent as prompts, through the real Agent SDK and `-p`:
 * `/cost` (`/usage`) and `/context` answer locally (the SDK's `local_command_output` message, the
 * same text as the result, no model request); a built-in that needs the interactive view says
 * so; an undefined `/word` goes to the model as written, as in Claude Code.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { makeSandbox, runAgainst } from '../cli/helpers.js';
import { strictDiagnostics } from './compileSource.js';
import { assertBuilt, promptsAfterResults, removeSandboxes, resultOf, runQuery } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const MODEL = 'claude-sonnet-4-5';
const answer = (text: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }], usage: { input_tokens: 1200, output_tokens: 34 } });

test('/cost, /context and /config in a session answer locally; /frobnicate reaches the model', async () => {
  const prompts = promptsAfterResults(['first question', '/cost', '/context', '/config', '/frobnicate the widget']);
  const { messages, server } = await runQuery([answer('one'), answer('frobnicated')], prompts.input, { model: MODEL }, {
    onMessage: (m) => void (m.type === 'result' && prompts.resultSeen()),
  });
  const results = resultOf(messages);
  expect(results.map((r) => r.subtype)).toEqual(['success', 'success', 'success', 'success', 'success']);
  expect(server.requests).toHaveLength(2);
  expect(JSON.stringify(server.requests[1]!.body!.messages.at(-1))).toContain('/frobnicate the widget');

  const outputs = messages.flatMap((m) => (m.type === 'system' && m.subtype === 'local_command_output' ? [m.content] : []));
  expect(outputs).toHaveLength(3);
  const [cost, context, config] = outputs;
  expect(cost).toContain(`Total cost:      $${results[0]!.total_cost_usd.toFixed(4)}`);
  expect(cost).toContain('1,200 input, 34 output');
  expect(cost).toMatch(/Turns: +1\n/);
  // The last request's real size (1,200 input + 34 output) is known after the first answer.
  expect(context).toMatch(/^Context of claude-sonnet-4-5: about 1,234 of 200,000 tokens \(1%\)\nMessages: 2, about \d+ tokens\nSystem prompt and tools: about [\d,]+ tokens$/);
  expect(config).toBe('/config needs the interactive view (rxagent without -p); nothing was sent to the model.');
  // Each report is its turn's result text too, with no model turn and nothing spent.
  expect(results.slice(1, 4).map((r) => (r.subtype === 'success' ? r.result : undefined))).toEqual(outputs);
  expect(results.slice(1, 4).map((r) => [r.num_turns, r.usage.input_tokens])).toEqual([[0, 0], [0, 0], [0, 0]]);
}, 120_000);

test('-p "/usage" prints the report as text and sends nothing; -p "/context" with --resume measures the resumed conversation', async () => {
  const box = makeSandbox();
  const usage = await runAgainst([], ['-p', '/usage'], box);
  expect(usage.code).toBe(0);
  expect(usage.stdout).toMatch(/^Total cost: {6}\$0\.0000\nTurns: {11}0\n/);
  expect(usage.server.requests).toHaveLength(0);

  const first = await runAgainst([answer('noted')], ['-p', 'remember 42', '--output-format', 'json'], box);
  const sessionId = (JSON.parse(first.stdout) as { session_id: string }).session_id;
  const context = await runAgainst([], ['-p', '/context', '--resume', sessionId], box);
  expect(context.code).toBe(0);
  expect(context.stdout).toMatch(/Messages: 2, about \d+ tokens\nSystem prompt and tools: measured after the first response\n$/);
  expect(context.server.requests).toHaveLength(0);
}, 60_000);

test('getContextUsage() answers with the SDK\'s shape: the last request\'s size, the messages, the free space', async () => {
  // A second message keeps the input open while the request is answered.
  const prompts = promptsAfterResults(['first question', '/context']);
  let usage: Awaited<ReturnType<import('@anthropic-ai/claude-agent-sdk').Query['getContextUsage']>> | undefined;
  const { messages, error } = await runQuery([answer('one')], prompts.input, { model: MODEL }, {
    onMessage: async (m, q) => {
      if (m.type !== 'result') return;
      usage ??= await q.getContextUsage();
      prompts.resultSeen();
    },
  });
  expect(error).toBeUndefined();
  expect(resultOf(messages)).toHaveLength(2);
  expect(usage).toMatchObject({ model: MODEL, totalTokens: 1234, maxTokens: 200_000, percentage: 1, apiUsage: { input_tokens: 1200, output_tokens: 34 } });
  const kinds = usage!.categories.map((c) => [c.id, c.kind]);
  expect(kinds).toEqual([['system_prompt', 'used'], ['messages', 'used'], ['free_space', 'free']]);
  expect(usage!.categories.reduce((n, c) => n + c.tokens, 0)).toBe(200_000);
  const source = `import type { SDKControlGetContextUsageResponse } from '@anthropic-ai/claude-agent-sdk';\nexport const u = ${JSON.stringify(usage)} satisfies SDKControlGetContextUsageResponse;`;
  expect(strictDiagnostics(source).map((d) => String(d.messageText))).toEqual([]);
}, 60_000);
