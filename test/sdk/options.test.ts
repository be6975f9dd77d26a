/**
 * SDK options and Query methods that had only command-line tests, now through `query()` itself:
 * setModel / setMaxThinkingTokens between turns, the initialize facts (supportedCommands,
 * supportedModels, supportedAgents, accountInfo, mcpServerStatus), sessionId / continue /
 * forkSession / persistSession, maxBudgetUsd, fallbackModel, betas, effort,
 * additionalDirectories, includeHookEvents with UserPromptSubmit, Stop and Subagent hook callbacks.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { workspaceSlug } from '../../src/session/paths.js';
import { makeSandbox } from '../cli/helpers.js';
import { FIXTURE_SERVER } from '../mcp/servers.js';
import { assertBuilt, promptsAfterResults, removeSandboxes, resultOf, runQuery } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const answer = (text: string, usage?: { input_tokens: number; output_tokens: number }) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }], ...(usage ? { usage } : {}) });
const call = (name: string, input: Record<string, unknown>, usage?: { input_tokens: number; output_tokens: number }) => ({ kind: 'message' as const, blocks: [{ type: 'tool_use' as const, name, input }], ...(usage ? { usage } : {}) });

test('setModel() and setMaxThinkingTokens() between turns; the session facts the SDK asks for', async () => {
  const prompts = promptsAfterResults(['one?', 'two?']);
  const facts: Record<string, unknown> = {};
  const { messages, server } = await runQuery([answer('one'), answer('two')], prompts.input, { model: 'claude-sonnet-4-5', agents: { lister: { description: 'Lists files', prompt: 'You list files.' } } }, {
    onMessage: async (m, q) => {
      if (m.type !== 'result') return;
      if (resultOf([m]).length && !facts['commands']) {
        facts['commands'] = (await q.supportedCommands()).map((c) => c.name);
        facts['models'] = (await q.supportedModels()).map((c) => c.value);
        facts['agents'] = (await q.supportedAgents()).map((a) => a.name);
        facts['account'] = await q.accountInfo();
        facts['mcp'] = await q.mcpServerStatus();
        await q.setModel('claude-haiku-4-5');
        await q.setMaxThinkingTokens(4096);
      }
      prompts.resultSeen();
    },
  });
  expect(resultOf(messages).map((r) => r.subtype)).toEqual(['success', 'success']);
  expect(server.requests.map((r) => r.body!.model)).toEqual(['claude-sonnet-4-5', 'claude-haiku-4-5']);
  expect(server.requests[1]!.body!.thinking).toEqual({ type: 'enabled', budget_tokens: 4096 });
  expect(facts['commands']).toEqual(expect.arrayContaining(['clear', 'compact', 'cost', 'context']));
  expect(facts['models']).toEqual(['claude-sonnet-4-5']);
  expect(facts['agents']).toEqual(expect.arrayContaining(['lister']));
  expect(facts['account']).toMatchObject({ apiKeySource: 'ANTHROPIC_API_KEY' });
  expect(facts['mcp']).toEqual([]);
  const inits = messages.filter((m) => m.type === 'system' && m.subtype === 'init');
  expect(inits.map((m) => m.type === 'system' && m.subtype === 'init' && m.model)).toEqual(['claude-sonnet-4-5', 'claude-haiku-4-5']);
}, 120_000);

test('sessionId, continue, forkSession and persistSession: false', async () => {
  const sandbox = makeSandbox();
  const id = '0a1b2c3d-0000-4000-8000-000000000017';
  const dir = join(sandbox.home, '.rxagent', 'projects', workspaceSlug(sandbox.cwd));
  const first = await runQuery([answer('noted')], 'remember 7', { sessionId: id }, { sandbox });
  expect(resultOf(first.messages)[0]).toMatchObject({ subtype: 'success', session_id: id });
  expect(existsSync(join(dir, `${id}.jsonl`))).toBe(true);

  const continued = await runQuery([answer('7')], 'which number?', { continue: true }, { sandbox });
  expect(resultOf(continued.messages)[0]).toMatchObject({ session_id: id, result: '7' });
  expect(JSON.stringify(continued.server.requests[0]!.body!.messages)).toContain('remember 7');

  const forked = await runQuery([answer('forked')], 'and now?', { resume: id, forkSession: true }, { sandbox });
  const forkId = resultOf(forked.messages)[0]!.session_id;
  expect(forkId).not.toBe(id);
  expect(JSON.stringify(forked.server.requests[0]!.body!.messages)).toContain('which number?');
  expect(existsSync(join(dir, `${forkId}.jsonl`))).toBe(true);

  const before = readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort();
  const ephemeral = await runQuery([answer('gone')], 'forget me', { persistSession: false }, { sandbox });
  expect(resultOf(ephemeral.messages)[0]).toMatchObject({ subtype: 'success', result: 'gone' });
  expect(readdirSync(dir).filter((f) => f.endsWith('.jsonl')).sort()).toEqual(before);
}, 120_000);

test('maxBudgetUsd ends the run with error_max_budget_usd once the cost reaches it; fallbackModel answers an overloaded model', async () => {
  const spent = await runQuery(
    [call('Glob', { pattern: '*' }, { input_tokens: 200_000, output_tokens: 1000 }), answer('never asked for')],
    'look around',
    { maxBudgetUsd: 0.01, permissionMode: 'bypassPermissions', allowDangerouslySkipPermissions: true },
  );
  expect(resultOf(spent.messages)[0]).toMatchObject({ subtype: 'error_max_budget_usd', is_error: true });
  expect(spent.server.requests).toHaveLength(1);

  const fell = await runQuery([{ kind: 'http_error', status: 529, errorType: 'overloaded_error' }, answer('from the fallback')], 'hello', { model: 'claude-opus-4-1', fallbackModel: 'claude-sonnet-4-5' }, { env: { CLAUDE_CODE_MAX_RETRIES: '0' } });
  expect(fell.server.requests.map((r) => r.body!.model)).toEqual(['claude-opus-4-1', 'claude-sonnet-4-5']);
  expect(resultOf(fell.messages)[0]).toMatchObject({ subtype: 'success', result: 'from the fallback' });
}, 120_000);

test('betas, effort and additionalDirectories reach the request and the permission check', async () => {
  const sandbox = makeSandbox();
  const extra = join(sandbox.cwd, '..', 'extra');
  mkdirSync(extra, { recursive: true });
  writeFileSync(join(extra, 'note.txt'), 'from the other directory\n');
  const { messages, server } = await runQuery([call('Read', { file_path: join(extra, 'note.txt') }), answer('read it')], 'read the note', {
    betas: ['context-1m-2025-08-07'],
    effort: 'low',
    model: 'claude-sonnet-5-5',
    additionalDirectories: [extra],
  }, { sandbox });
  expect(resultOf(messages)[0]).toMatchObject({ subtype: 'success', result: 'read it' });
  expect(server.requests[0]!.headers['anthropic-beta']).toContain('context-1m-2025-08-07');
  expect(server.requests[0]!.body!).toMatchObject({ output_config: { effort: 'low' } });
  // Reads inside an added directory need no question (none could be answered here: no canUseTool).
  expect(JSON.stringify(server.requests[1]!.body!.messages.at(-1))).toContain('from the other directory');
}, 60_000);

test('includeHookEvents with UserPromptSubmit, Stop, SubagentStart and SubagentStop callbacks', async () => {
  const fired: Array<Record<string, unknown>> = [];
  const record = async (input: unknown) => (fired.push(input as Record<string, unknown>), {});
  const { messages } = await runQuery(
    [call('Agent', { description: 'look', prompt: 'List the files', subagent_type: 'lister' }), answer('child done'), answer('parent done')],
    'delegate',
    {
      includeHookEvents: true,
      permissionMode: 'bypassPermissions',
      allowDangerouslySkipPermissions: true,
      agents: { lister: { description: 'Lists files', prompt: 'You list files.', tools: ['Glob'] } },
      hooks: { UserPromptSubmit: [{ hooks: [record] }], Stop: [{ hooks: [record] }], SubagentStart: [{ hooks: [record] }], SubagentStop: [{ hooks: [record] }] },
    },
  );
  expect(resultOf(messages)[0]).toMatchObject({ subtype: 'success', result: 'parent done' });
  expect(fired.map((f) => f['hook_event_name'])).toEqual(['UserPromptSubmit', 'SubagentStart', 'SubagentStop', 'Stop']);
  expect(fired[0]).toMatchObject({ prompt: 'delegate' });
  expect(fired[1]).toMatchObject({ agent_type: 'lister' });
  const hookLines = messages.flatMap((m) => (m.type === 'system' && (m.subtype === 'hook_started' || m.subtype === 'hook_response') ? [`${m.subtype}:${m.hook_name}`] : []));
  expect(hookLines).toEqual(expect.arrayContaining(['hook_started:UserPromptSubmit', 'hook_response:UserPromptSubmit', 'hook_started:Stop', 'hook_response:Stop']));
}, 120_000);

test("mcpServersDelivery 'initialize' (the SDK's announced default): the servers come in the initialize request and their tools run", async () => {
  const { messages, server } = await runQuery([call('mcp__fixture__echo', { text: 'over initialize' }), answer('echoed')], 'echo it', {
    mcpServersDelivery: 'initialize',
    mcpServers: { fixture: { command: process.execPath, args: [FIXTURE_SERVER] } },
    allowedTools: ['mcp__fixture'],
    disallowedTools: ['Bash'],
  });
  const init = messages.find((m) => m.type === 'system' && m.subtype === 'init');
  expect(init).toMatchObject({ mcp_servers: [{ name: 'fixture', status: 'connected' }] });
  expect(init?.type === 'system' && init.subtype === 'init' ? init.tools : []).not.toContain('Bash');
  expect(resultOf(messages)[0]).toMatchObject({ subtype: 'success', result: 'echoed' });
  expect(JSON.stringify(server.requests[1]!.body!.messages.at(-1))).toContain('over initialize');
}, 60_000);
