/**
 * The reference server `@modelcontextprotocol/server-everything`, over stdio, over
 * Streamable HTTP and over the legacy HTTP+SSE transport on 127.0.0.1, through `connectMcpServers` and the real tool pipeline.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { McpServerConfig } from '../../src/mcp/config.js';
import { callTool, hold, resultOf, toolNamed, type Held } from './hold.js';
import { everythingStdio, isAlive, startEverythingHttp, type RunningHttpServer } from './servers.js';

let http: RunningHttpServer;
let sse: RunningHttpServer;
beforeAll(async () => {
  [http, sse] = await Promise.all([startEverythingHttp(), startEverythingHttp('sse')]);
});
afterAll(async () => {
  await Promise.all([http?.stop(), sse?.stop()]);
});

const transports: [string, () => McpServerConfig][] = [
  ['stdio', everythingStdio],
  ['Streamable HTTP', () => ({ type: 'http', url: http.url })],
  // The legacy HTTP+SSE transport (GET /sse for the event stream, POST /message?sessionId=…).
  ['SSE', () => ({ type: 'sse', url: sse.url, headers: { 'X-Test-Header': 'sent' } })],
];

describe.each(transports)('server-everything over %s', (_label, config) => {
  let held: Held;
  beforeAll(async () => {
    held = hold({ everything: config() });
    await held.first;
  });
  afterAll(async () => {
    await held?.close();
  });

  it('connects and offers its tools as mcp__everything__<tool> with the server JSON Schema', async () => {
    const tools = await held.first;
    expect(tools.servers).toEqual([expect.objectContaining({ name: 'everything', status: 'connected' })]);
    const echo = toolNamed(tools, 'mcp__everything__echo');
    expect(echo.jsonSchema).toMatchObject({ type: 'object', properties: { message: { type: 'string' } }, required: ['message'] });
    expect(tools.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['mcp__everything__get-sum', 'mcp__everything__trigger-long-running-operation']));
  });

  it('echo and get-sum answer through the pipeline', async () => {
    const tools = held.latest()!.tools;
    expect(resultOf(await callTool(tools, 'mcp__everything__echo', { message: 'hi there' }))).toMatchObject({ content: 'Echo: hi there' });
    const sum = resultOf(await callTool(tools, 'mcp__everything__get-sum', { a: 2, b: 40 }));
    expect(sum.is_error).toBeUndefined();
    expect(JSON.stringify(sum.content)).toContain('42');
  });

  it('input that breaks the server schema is refused before the call, naming the field', async () => {
    const result = resultOf(await callTool(held.latest()!.tools, 'mcp__everything__get-sum', { a: 'two', b: 1 }));
    expect(result.is_error).toBe(true);
    expect(String(result.content)).toContain('a');
    expect(String(result.content)).toMatch(/number/);
  });

  it('readOnlyHint maps to concurrency: echo is safe, gzip-file-as-resource is not', () => {
    const tools = held.latest()!;
    expect(toolNamed(tools, 'mcp__everything__echo').isConcurrencySafe).toBe(true);
    expect(toolNamed(tools, 'mcp__everything__gzip-file-as-resource').isConcurrencySafe).toBe(false);
  });

  it('a long-running operation reports progress as tool_progress before its result', async () => {
    const events = await callTool(held.latest()!.tools, 'mcp__everything__trigger-long-running-operation', { duration: 0.3, steps: 3 });
    const progress = events.filter((e) => e.type === 'tool_progress');
    expect(progress.map((e) => e.type === 'tool_progress' && e.data)).toEqual([
      { type: 'mcp_progress', progress: 1, total: 3 },
      { type: 'mcp_progress', progress: 2, total: 3 },
      { type: 'mcp_progress', progress: 3, total: 3 },
    ]);
    expect(events.at(-1)?.type).toBe('tool_result');
    expect(String(resultOf(events).content)).toContain('Long running operation completed');
  });

  it('an image result becomes an image block', async () => {
    const result = resultOf(await callTool(held.latest()!.tools, 'mcp__everything__get-tiny-image', {}));
    expect(result.content).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'image', source: expect.objectContaining({ type: 'base64', media_type: 'image/png' }) })]));
  });

  it('structured content and embedded resources become text', async () => {
    const structured = resultOf(await callTool(held.latest()!.tools, 'mcp__everything__get-structured-content', { location: 'New York' }));
    expect(JSON.stringify(structured.content)).toMatch(/temperature/);
    const reference = resultOf(await callTool(held.latest()!.tools, 'mcp__everything__get-resource-reference', { resourceType: 'Text', resourceId: 1 }));
    expect(JSON.stringify(reference.content)).toContain('[resource demo://resource/dynamic/text/1]');
  });

  it('a tool that fails on the server gives an error result and the connection goes on', async () => {
    // Loopback port 1: nothing listens, so the server's fetch fails and it answers isError.
    const result = resultOf(await callTool(held.latest()!.tools, 'mcp__everything__gzip-file-as-resource', { name: 'x.gz', data: 'http://127.0.0.1:1/nothing', outputType: 'resource' }));
    expect(result.is_error).toBe(true);
    expect(String(result.content)).toContain('mcp__everything__gzip-file-as-resource');
    expect(resultOf(await callTool(held.latest()!.tools, 'mcp__everything__echo', { message: 'still here' }))).toMatchObject({ content: 'Echo: still here' });
  });

  it('resources are listed and read through the resource tools', async () => {
    const tools = held.latest()!.tools;
    const listed = resultOf(await callTool(tools, 'ListMcpResourcesTool', { server: 'everything' }));
    expect(String(listed.content)).toContain('demo://resource/static/document/');
    const uri = /"uri": "(demo:\/\/resource\/static\/document\/[^"]+)"/.exec(String(listed.content))![1]!;
    const read = resultOf(await callTool(tools, 'ReadMcpResourceTool', { server: 'everything', uri }));
    expect(read.is_error).toBeUndefined();
    expect(String(read.content)).toContain(`[resource ${uri}]`);
  });

  it('tools that would need sampling or elicitation are not offered (no elicitation handler given, no sampling support)', () => {
    const names = held.latest()!.tools.map((t) => t.name);
    expect(names).not.toContain('mcp__everything__trigger-sampling-request');
    expect(names).not.toContain('mcp__everything__trigger-elicitation-request');
  });
});

describe('closing', () => {
  it('unsubscribing stops the stdio server process', async () => {
    const held = hold({ everything: everythingStdio() });
    const tools = await held.first;
    const [pid] = tools.pids;
    expect(pid).toBeGreaterThan(0);
    expect(isAlive(pid!)).toBe(true);
    await held.close();
    expect(isAlive(pid!)).toBe(false);
  });

  it('unsubscribing ends the HTTP session with DELETE', async () => {
    const held = hold({ everything: { type: 'http', url: http.url } });
    await held.first;
    const sessions = [...http.log().matchAll(/Session initialized with ID: ([\w-]+)/g)].map((m) => m[1]);
    await held.close();
    const last = sessions.at(-1)!;
    expect(http.log()).toContain(`Transport closed for session ${last}`);
  });

  it('unsubscribing closes the SSE event stream (the server sees the client leave)', async () => {
    const held = hold({ everything: { type: 'sse', url: sse.url } });
    expect((await held.first).servers).toEqual([expect.objectContaining({ status: 'connected' })]);
    const id = [...sse.log().matchAll(/Client Connected: +([\w-]+)/g)].map((m) => m[1]).at(-1)!;
    expect(id).toBeTruthy();
    await held.close();
    await sse.waitForLog(new RegExp(`Client Disconnected: +${id}`));
  });
});
