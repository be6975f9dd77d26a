/**
 * The edge cases, against our fixture server (SDK server classes): in-process for schemas,
 * sizes, errors, hangs, cancellation and list_changed; as a real process for crashes, failed
 * starts and start-up timeouts.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callTool, hold, resultOf, toolNamed, type Held } from './hold.js';
import { linkFixture } from './inProcess.js';
import { FIXTURE_SERVER, isAlive } from './servers.js';

const opened: Held[] = [];
const open = (...args: Parameters<typeof hold>): Held => {
  const held = hold(...args);
  opened.push(held);
  return held;
};
afterEach(async () => {
  await Promise.all(opened.splice(0).map((h) => h.close()));
});

describe('an in-process fixture server', () => {
  it('tools with unusable schemas are left out and named with the reason; the others are offered', async () => {
    const tools = await open({ fixture: linkFixture().config }).first;
    const names = tools.tools.map((t) => t.name);
    expect(names).toContain('mcp__fixture__echo');
    expect(names).not.toContain('mcp__fixture__bad_schema');
    expect(names).not.toContain('mcp__fixture__not_object');
    expect(tools.skippedTools).toEqual([
      { server: 'fixture', name: 'bad_schema', reason: expect.stringContaining('wat') },
      { server: 'fixture', name: 'not_object', reason: expect.stringContaining('inputSchema') },
    ]);
  });

  it('huge output is cut at MAX_MCP_OUTPUT_TOKENS with a note', async () => {
    const tools = await open({ fixture: linkFixture().config }, { limits: { maxOutputTokens: 100 } }).first;
    const content = String(resultOf(await callTool(tools.tools, 'mcp__fixture__huge', { size: 100_000 })).content);
    expect(content.startsWith('x'.repeat(400))).toBe(true);
    expect(content).not.toContain('x'.repeat(401));
    expect(content).toContain('MAX_MCP_OUTPUT_TOKENS (100 tokens)');
  });

  it('output under the limit is kept whole', async () => {
    const tools = await open({ fixture: linkFixture().config }, { limits: { maxOutputTokens: 100 } }).first;
    expect(resultOf(await callTool(tools.tools, 'mcp__fixture__huge', { size: 400 })).content).toBe('x'.repeat(400));
  });

  it('an isError result is an error tool_result with the server text', async () => {
    const tools = await open({ fixture: linkFixture().config }).first;
    const result = resultOf(await callTool(tools.tools, 'mcp__fixture__fail', {}));
    expect(result).toMatchObject({ is_error: true, content: '`mcp__fixture__fail` failed: the fixture failed on purpose' });
  });

  it('text and image content become text and image blocks', async () => {
    const tools = await open({ fixture: linkFixture().config }).first;
    expect(resultOf(await callTool(tools.tools, 'mcp__fixture__image', {})).content).toEqual([
      { type: 'text', text: 'a dot:' },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: expect.any(String) } },
    ]);
  });

  it('progress arrives in order with its message, all before the result', async () => {
    const tools = await open({ fixture: linkFixture().config }).first;
    const events = await callTool(tools.tools, 'mcp__fixture__slow_progress', { steps: 4 });
    expect(events.map((e) => (e.type === 'tool_progress' ? (e.data as { message: string }).message : e.type))).toEqual([
      'tool_start',
      'step 1',
      'step 2',
      'step 3',
      'step 4',
      'tool_result',
    ]);
  });

  it('a hanging call is stopped at MCP_TOOL_TIMEOUT and the server is told to cancel it', async () => {
    const fixture = linkFixture();
    const tools = await open({ fixture: fixture.config }, { limits: { toolTimeoutMs: 200 } }).first;
    const [events, reason] = await Promise.all([callTool(tools.tools, 'mcp__fixture__hang', {}), fixture.cancelled('hang')]);
    expect(resultOf(events)).toMatchObject({ is_error: true, content: expect.stringContaining('did not finish within 200 ms') });
    expect(String(reason)).toMatch(/abort/i);
  });

  it('aborting a call sends notifications/cancelled and answers with a cancellation result', async () => {
    const fixture = linkFixture();
    const tools = await open({ fixture: fixture.config }).first;
    const controller = new AbortController();
    const running = callTool(tools.tools, 'mcp__fixture__hang', {}, controller.signal);
    await fixture.called('hang');
    controller.abort();
    await fixture.cancelled('hang');
    expect(resultOf(await running)).toMatchObject({ is_error: true, content: 'The call to `mcp__fixture__hang` was cancelled before it finished.' });
    // The connection is still good after a cancellation.
    expect(resultOf(await callTool(tools.tools, 'mcp__fixture__echo', { text: 'ok' })).content).toBe('ok');
  });

  it('tools/list_changed brings a new value with the new tool', async () => {
    const held = open({ fixture: linkFixture().config });
    const tools = await held.first;
    expect(tools.tools.map((t) => t.name)).not.toContain('mcp__fixture__late');
    const changed = held.next((t) => t.tools.some((tool) => tool.name === 'mcp__fixture__late'));
    await callTool(tools.tools, 'mcp__fixture__add_tool', {});
    const next = await changed;
    expect(resultOf(await callTool(next.tools, 'mcp__fixture__late', {})).content).toBe('late tool ran');
  });

  it('resources are read through ReadMcpResourceTool; an unknown server is an error result', async () => {
    const tools = (await open({ fixture: linkFixture().config }).first).tools;
    expect(resultOf(await callTool(tools, 'ReadMcpResourceTool', { server: 'fixture', uri: 'fixture://greeting' })).content).toBe(
      '[resource fixture://greeting]\nhello from a resource',
    );
    const wrong = resultOf(await callTool(tools, 'ReadMcpResourceTool', { server: 'nope', uri: 'fixture://greeting' }));
    expect(wrong).toMatchObject({ is_error: true, content: expect.stringContaining('no MCP server named "nope"') });
  });
});

describe('fixture servers as processes', () => {
  const node = process.execPath;

  it('a server that crashes mid-call: the call gets an error result, the server is reported failed, its tools leave', async () => {
    const held = open({ fixture: { command: node, args: [FIXTURE_SERVER] } });
    const tools = await held.first;
    const gone = held.next((t) => t.servers[0]?.status === 'failed');
    const result = resultOf(await callTool(tools.tools, 'mcp__fixture__crash', {}));
    expect(result).toMatchObject({ is_error: true, content: expect.stringMatching(/mcp__fixture__crash.*(closed|Connection)/i) });
    const after = await gone;
    expect(after.servers[0]).toMatchObject({ name: 'fixture', status: 'failed', error: expect.stringContaining('closed the connection') });
    expect(after.tools.filter((t) => t.name.startsWith('mcp__fixture__'))).toEqual([]);
  });

  it('one server failing to start is reported with its stderr while the others connect', async () => {
    const tools = await open({
      broken: { command: node, args: [FIXTURE_SERVER, 'stderr-then-exit'] },
      good: { command: node, args: [FIXTURE_SERVER] },
    }).first;
    expect(tools.servers).toEqual([
      { name: 'broken', status: 'failed', error: expect.stringContaining('cannot open its database') },
      expect.objectContaining({ name: 'good', status: 'connected' }),
    ]);
    expect(tools.tools.some((t) => t.name === 'mcp__good__echo')).toBe(true);
  });

  it('a command that does not exist fails with the reason', async () => {
    const tools = await open({ nope: { command: '/nonexistent/mcp-server' } }).first;
    expect(tools.servers[0]).toMatchObject({ status: 'failed', error: expect.stringContaining('ENOENT') });
  });

  it('a server that never answers initialize fails at MCP_TIMEOUT and its process is stopped', async () => {
    const log = join(mkdtempSync(join(tmpdir(), 'rxagent-mcp-')), 'pid');
    const script = `require('fs').writeFileSync(${JSON.stringify(log)}, String(process.pid)); setInterval(() => {}, 1000)`;
    const held = open({ mute: { command: node, args: ['-e', script] } }, { limits: { connectTimeoutMs: 500 } });
    const tools = await held.first;
    expect(tools.servers[0]).toMatchObject({ status: 'failed', error: expect.stringContaining('did not start within 500 ms (MCP_TIMEOUT)') });
    await held.close();
    expect(isAlive(Number(readFileSync(log, 'utf8')))).toBe(false);
  });

  it('an unset ${VAR} without a default fails that server, naming the variable; ${VAR:-default} is used', async () => {
    const tools = await open(
      {
        missing: { command: node, args: [FIXTURE_SERVER, '${RXAGENT_TEST_UNSET_VAR}'] },
        defaulted: { command: '${RXAGENT_TEST_NODE:-' + node + '}', args: [FIXTURE_SERVER] },
      },
      { env: { PATH: process.env['PATH'] } },
    ).first;
    expect(tools.servers).toEqual([
      { name: 'missing', status: 'failed', error: expect.stringContaining('RXAGENT_TEST_UNSET_VAR') },
      expect.objectContaining({ name: 'defaulted', status: 'connected' }),
    ]);
  });
});

describe('an HTTP server that wants credentials', () => {
  let server: HttpServer | undefined;
  afterEach(async () => {
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });

  it('a 401 is reported as needs-auth', async () => {
    server = createServer((_req, res) => {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end('{"error":"unauthorized"}');
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const tools = await open({ remote: { type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: 'Bearer wrong' } } }).first;
    expect(tools.servers[0]).toMatchObject({ name: 'remote', status: 'needs-auth' });
  });
});

it('the tool found by name is the adapter', async () => {
  const tools = await open({ fixture: linkFixture().config }).first;
  expect(toolNamed(tools, 'mcp__fixture__echo').jsonSchema).toEqual({
    type: 'object',
    properties: { text: { type: 'string' } },
    required: ['text'],
    additionalProperties: false,
  });
});
