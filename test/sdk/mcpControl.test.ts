/**
 * The host changes the session's MCP servers through the real SDK, between turns of one
 * process: `setMcpServers` (start new, stop removed, each failure named in `errors`; in-process
 * `createSdkMcpServer` servers too), `toggleMcpServer` (a disabled server's tools leave the next
 * request, and come back), `reconnectMcpServer` (a new connection: the server's own call count
 * starts again) and `readMcpResource` (a `ui://` resource; other schemes refused).
 */
import { fileURLToPath } from 'node:url';
import { createSdkMcpServer, tool, type Query, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { z } from 'zod';
import { assertBuilt, removeSandboxes, resultOf, runQuery, userMessage } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const UI_SERVER = fileURLToPath(new URL('./fixtures/uiServer.mjs', import.meta.url));
const answer = (text: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }] });
const call = (name: string) => ({ kind: 'message' as const, blocks: [{ type: 'tool_use' as const, name, input: {} }] });
const toolNames = (body: unknown) => ((body as { tools?: Array<{ name: string }> }).tools ?? []).map((t) => t.name);

const calc = () =>
  createSdkMcpServer({ name: 'calc', version: '1.0.0', tools: [tool('add', 'Adds', { a: z.number(), b: z.number() }, async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }] }))] });

test('setMcpServers, toggleMcpServer, reconnectMcpServer and readMcpResource change the servers between turns', async () => {
  let resolveQuery!: (q: Query) => void;
  const queryReady = new Promise<Query>((resolve) => (resolveQuery = resolve));
  let resultSeen!: () => void;
  const results: Array<Promise<void>> = [];
  const nextResult = () => {
    const seen = new Promise<void>((resolve) => (resultSeen = resolve));
    results.push(seen);
    return seen;
  };
  const observed: Record<string, unknown> = {};
  const input = (async function* (): AsyncGenerator<SDKUserMessage> {
    const q = await queryReady;
    observed['set'] = await q.setMcpServers({
      ui: { command: process.execPath, args: [UI_SERVER] },
      broken: { command: '/nonexistent/mcp-server' },
      calc: calc(),
    });
    observed['statusAfterSet'] = await q.mcpServerStatus();
    let turn = nextResult();
    yield userMessage('ping twice');
    await turn;

    await q.toggleMcpServer('ui', false);
    observed['statusDisabled'] = (await q.mcpServerStatus()).find((s) => s.name === 'ui')?.status;
    turn = nextResult();
    yield userMessage('without ui');
    await turn;

    await q.toggleMcpServer('ui', true);
    await q.reconnectMcpServer('ui');
    observed['reconnectUnknown'] = await q.reconnectMcpServer('nope').then(() => 'resolved', (e: Error) => e.message);
    observed['resource'] = await q.readMcpResource('ui', 'ui://widget/hello');
    observed['notUi'] = await q.readMcpResource('ui', 'file:///etc/passwd').then(() => 'resolved', (e: Error) => e.message);
    turn = nextResult();
    yield userMessage('ping after reconnect');
    await turn;

    observed['cleared'] = await q.setMcpServers({});
    turn = nextResult();
    yield userMessage('no servers');
    await turn;
  })();

  const { messages, server } = await runQuery(
    [call('mcp__ui__ping'), call('mcp__ui__ping'), answer('pinged'), answer('no ui'), call('mcp__ui__ping'), answer('pinged again'), answer('none')],
    input,
    { allowedTools: ['mcp__ui__ping'] },
    { withQuery: resolveQuery, onMessage: (m) => void (m.type === 'result' && resultSeen()) },
  );
  expect(resultOf(messages).map((r) => r.subtype)).toEqual(['success', 'success', 'success', 'success']);

  const set = observed['set'] as { added: string[]; removed: string[]; errors: Record<string, string> };
  expect([...set.added].sort()).toEqual(['broken', 'calc', 'ui']);
  expect(set.removed).toEqual([]);
  expect(Object.keys(set.errors)).toEqual(['broken']);
  expect(observed['statusAfterSet']).toEqual(
    expect.arrayContaining([expect.objectContaining({ name: 'ui', status: 'connected' }), expect.objectContaining({ name: 'calc', status: 'connected' }), expect.objectContaining({ name: 'broken', status: 'failed' })]),
  );

  const requests = server.requests.map((r) => r.body);
  // Turn 1: both servers' tools are offered; the ui server counts its calls.
  expect(toolNames(requests[0])).toEqual(expect.arrayContaining(['mcp__ui__ping', 'mcp__calc__add']));
  expect(JSON.stringify(requests[2])).toContain('pong 2');
  // Turn 2: ui is disabled, its tool is gone from the request; calc stays.
  expect(observed['statusDisabled']).toBe('disabled');
  expect(toolNames(requests[3])).not.toContain('mcp__ui__ping');
  expect(toolNames(requests[3])).toContain('mcp__calc__add');
  // Turn 3: enabled and reconnected: a new server process, whose count starts again.
  expect(toolNames(requests[4])).toContain('mcp__ui__ping');
  expect(JSON.stringify(requests[5])).toContain('pong 1');
  expect(observed['reconnectUnknown']).toMatch(/nope/);
  expect(observed['resource']).toEqual({ contents: [{ uri: 'ui://widget/hello', mimeType: 'text/html;profile=mcp-app', text: '<p>hello widget</p>', _meta: { ui: { prefersBorder: true } } }] });
  expect(observed['notUi']).toMatch(/ui:\/\//);
  // Turn 4: setMcpServers({}) removed every server it had added.
  expect(observed['cleared']).toMatchObject({ added: [], errors: {} });
  expect([...(observed['cleared'] as { removed: string[] }).removed].sort()).toEqual(['broken', 'calc', 'ui']);
  expect(toolNames(requests[6]).filter((n) => n.startsWith('mcp__'))).toEqual([]);
}, 120_000);

test("an in-process server's own tools/list_changed (mcp_message to the engine) brings its new tool into the next request", async () => {
  const server = calc();
  let resolveQuery!: (q: Query) => void;
  const queryReady = new Promise<Query>((resolve) => (resolveQuery = resolve));
  let resultSeen!: () => void;
  const nextResult = () => new Promise<void>((resolve) => (resultSeen = resolve));
  const input = (async function* (): AsyncGenerator<SDKUserMessage> {
    const q = await queryReady;
    let turn = nextResult();
    yield userMessage('one');
    await turn;
    // The SDK's McpServer announces the new tool to its client: the host sends it to us as mcp_message.
    server.instance.registerTool('late', { description: 'Added during the session', inputSchema: {} }, async () => ({ content: [{ type: 'text', text: 'late' }] }));
    // A round trip after it: the engine has read the notification before the next message comes.
    await q.mcpServerStatus();
    turn = nextResult();
    yield userMessage('two');
    await turn;
  })();
  const { messages, server: model, stderr } = await runQuery([answer('one'), answer('two')], input, { mcpServers: { calc: server } }, {
    withQuery: resolveQuery,
    onMessage: (m) => void (m.type === 'result' && resultSeen()),
  });
  expect(resultOf(messages).map((r) => r.subtype)).toEqual(['success', 'success']);
  const [first, second] = model.requests.map((r) => toolNames(r.body));
  expect(first).toContain('mcp__calc__add');
  expect(first).not.toContain('mcp__calc__late');
  expect(second).toEqual(expect.arrayContaining(['mcp__calc__add', 'mcp__calc__late']));
  expect(stderr).not.toMatch(/mcp_message/);
}, 120_000);

/**
 * One session: `setUp` acts on the query before the first message, then `/clear` and one more
 * turn. Both turns must succeed and the reset must be seen.
 */
async function setUpThenClear(setUp: (q: Query) => Promise<void>, options: Parameters<typeof runQuery>[2] = {}) {
  let resolveQuery!: (q: Query) => void;
  const queryReady = new Promise<Query>((resolve) => (resolveQuery = resolve));
  let resultSeen!: () => void;
  const nextResult = () => new Promise<void>((resolve) => (resultSeen = resolve));
  const input = (async function* (): AsyncGenerator<SDKUserMessage> {
    await setUp(await queryReady);
    let turn = nextResult();
    yield userMessage('/clear');
    await turn;
    turn = nextResult();
    yield userMessage('after clear');
    await turn;
  })();
  const run = await runQuery([answer('fresh')], input, options, { withQuery: resolveQuery, onMessage: (m) => void (m.type === 'result' && resultSeen()) });
  expect(resultOf(run.messages).map((r) => r.subtype)).toEqual(['success', 'success']);
  expect(run.messages.some((m) => m.type === 'conversation_reset')).toBe(true);
  return run;
}

test('the servers setMcpServers added are still there after /clear', async () => {
  const { server } = await setUpThenClear((q) => q.setMcpServers({ ui: { command: process.execPath, args: [UI_SERVER] } }).then(() => undefined));
  expect(toolNames(server.requests[0]?.body)).toContain('mcp__ui__ping');
}, 120_000);

test('a server toggleMcpServer switched off stays off after /clear; the others come back', async () => {
  const servers = { on: { command: process.execPath, args: [UI_SERVER] }, off: { command: process.execPath, args: [UI_SERVER] } };
  const { server } = await setUpThenClear((q) => q.toggleMcpServer('off', false), { mcpServers: servers });
  expect(server.requests).toHaveLength(1);
  expect(toolNames(server.requests[0]?.body)).toContain('mcp__on__ping');
  expect(toolNames(server.requests[0]?.body)).not.toContain('mcp__off__ping');
}, 120_000);
