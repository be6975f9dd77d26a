/**
 * `tool_use_result` beyond a built-in's success, through the real Agent SDK, each checked with tsc
 * against the SDK's own `sdk-tools.d.ts` type: a Bash command stopped by its timeout or by the
 * host's interrupt (`BashOutput` with `interrupted: true`); the Agent tool (`AgentOutput`: the
 * child's answer as content, its tool calls, usage, prompt); MCP tools (`McpOutput`: the content
 * blocks, or the server's `structuredContent`). The model's tool_result texts are unchanged.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createSdkMcpServer, tool } from '@anthropic-ai/claude-agent-sdk';
import { makeSandbox } from '../cli/helpers.js';
import { compileAgainstSdkTools } from './compileSource.js';
import { assertBuilt, removeSandboxes, resultOf, resultsById, runQuery } from './helpers.js';
import { fileCreated } from '../fileCreated.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const call = (name: string, input: Record<string, unknown>) => ({ kind: 'message' as const, blocks: [{ type: 'tool_use' as const, name, input }] });
const answer = (text: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }] });
/** The scripted server's ids: toolu_scripted_<response>_<block>. */
const FIRST_CALL = 'toolu_scripted_0_0';
const sentToModel = (body: { messages: Array<{ content: unknown }> } | undefined) => JSON.stringify(body?.messages.at(-1)?.content);

test('Bash stopped by its timeout: interrupted true with what it printed; the model still gets the error text', async () => {
  const { messages, server } = await runQuery([call('Bash', { command: 'echo before; sleep 30', timeout: 1000 }), answer('it timed out')], 'run it', {
    permissionMode: 'bypassPermissions',
    allowDangerouslySkipPermissions: true,
  });
  const result = resultsById(messages).get(FIRST_CALL)?.tool_use_result;
  expect(result).toEqual({ stdout: 'before', stderr: '', interrupted: true, isImage: false, noOutputExpected: false });
  expect(sentToModel(server.requests[1]?.body)).toContain('timed out after 1000 ms');
  expect(compileAgainstSdkTools([['BashOutput', result]])).toEqual([]);
}, 60_000);

test("Bash stopped by the host's interrupt: interrupted true; the turn ends as an interrupt", async () => {
  const sandbox = makeSandbox();
  const running = fileCreated(sandbox.cwd, 'running');
  const { messages } = await runQuery([call('Bash', { command: 'touch running; sleep 60' }), answer('never asked for')], 'run it', {
    permissionMode: 'bypassPermissions',
    allowDangerouslySkipPermissions: true,
  }, {
    sandbox,
    withQuery: (q) => void running.then(() => q.interrupt()),
  });
  expect(resultsById(messages).get(FIRST_CALL)?.tool_use_result).toEqual({ stdout: '', stderr: '', interrupted: true, isImage: false, noOutputExpected: false });
  expect(resultOf(messages)[0]).toMatchObject({ subtype: 'error_during_execution', is_error: true });
}, 60_000);

test("the Agent tool: Claude Code's AgentOutput (the child's answer as content, its tool calls, usage, the prompt)", async () => {
  const { messages, server } = await runQuery(
    [call('Agent', { description: 'count files', prompt: 'List the files here', subagent_type: 'lister' }), call('Glob', { pattern: '*' }), answer('two files'), answer('the child said two')],
    'delegate',
    {
      permissionMode: 'bypassPermissions',
      allowDangerouslySkipPermissions: true,
      agents: { lister: { description: 'Lists files', prompt: 'You list files.', tools: ['Glob'] } },
    },
    { files: { 'a.txt': 'a', 'b.txt': 'b' } },
  );
  const result = resultsById(messages).get(FIRST_CALL)?.tool_use_result as Record<string, unknown> | undefined;
  expect(result).toMatchObject({
    status: 'completed',
    agentType: 'lister',
    content: [{ type: 'text', text: 'two files' }],
    totalToolUseCount: 1,
    toolsUsed: ['Glob'],
    prompt: 'List the files here',
    usage: { input_tokens: expect.any(Number), output_tokens: expect.any(Number), server_tool_use: null, service_tier: null, cache_creation: null },
  });
  expect(result?.['agentId']).toEqual(expect.any(String));
  expect(result?.['totalTokens']).toBeGreaterThan(0);
  // The model reads the answer with the usage line, not the object.
  const sent = sentToModel(server.requests[3]?.body);
  expect(sent).toContain('two files');
  expect(sent).not.toContain('totalToolUseCount');
  expect(resultOf(messages)[0]).toMatchObject({ subtype: 'success', result: 'the child said two' });
  expect(compileAgainstSdkTools([['AgentOutput', result]])).toEqual([]);
}, 120_000);

test("MCP tools: the content blocks, or the server's structuredContent when it sends one", async () => {
  const weather = createSdkMcpServer({
    name: 'weather',
    version: '1.0.0',
    tools: [
      tool('plain', 'Plain text', {}, async () => ({ content: [{ type: 'text', text: 'sunny' }] })),
      tool('typed', 'Typed data', {}, async () => ({ content: [{ type: 'text', text: '{"temp":21}' }], structuredContent: { temp: 21 } })),
    ],
  });
  const { messages, server } = await runQuery([call('mcp__weather__plain', {}), call('mcp__weather__typed', {}), answer('21 and sunny')], 'weather?', {
    mcpServers: { weather },
    allowedTools: ['mcp__weather'],
  });
  const byId = resultsById(messages);
  const plain = byId.get(FIRST_CALL)?.tool_use_result;
  const typed = byId.get('toolu_scripted_1_0')?.tool_use_result;
  expect(plain).toEqual([{ type: 'text', text: 'sunny' }]);
  expect(typed).toEqual({ temp: 21 });
  expect(sentToModel(server.requests[1]?.body)).toContain('sunny');
  expect(sentToModel(server.requests[2]?.body)).toContain('{\\"temp\\":21}');
  expect(compileAgainstSdkTools([['McpOutput', plain], ['McpOutput', typed]])).toEqual([]);
}, 60_000);
