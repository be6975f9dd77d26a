/**
 * A traced run sends each MCP tool call's trace context on: the real `rxagent -p` calls a real
 * MCP server (the SDK's server classes behind its Streamable HTTP transport, on 127.0.0.1), and
 * the `tools/call` carries the `execute_tool` span's context in `params._meta.traceparent` (the
 * OpenTelemetry MCP convention) and as the W3C `traceparent` header; the span is the one the OTLP
 * receiver got. Without telemetry, neither is sent.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { assertBuilt, makeSandbox, removeSandboxes, runAgainst } from '../cli/helpers.js';
import { createFixtureServer } from '../mcp/fixtures/fixtureServer.mjs';
import { startOtlpReceiver, type OtlpReceiver } from './otlpReceiver.js';

interface SeenCall {
  readonly headers: IncomingHttpHeaders;
  readonly meta: Record<string, unknown> | undefined;
}

let receiver: OtlpReceiver;
let mcpServer: Server;
let mcpUrl: string;
const calls: SeenCall[] = [];

beforeAll(async () => {
  assertBuilt();
  receiver = await startOtlpReceiver();
  // Stateless Streamable HTTP: a fresh server and transport per request, as the SDK documents it.
  mcpServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const body: unknown = text === '' ? undefined : JSON.parse(text);
      const message = body as { method?: string; params?: { _meta?: Record<string, unknown> } } | undefined;
      if (message?.method === 'tools/call') calls.push({ headers: req.headers, meta: message.params?._meta });
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
      const server = createFixtureServer({});
      res.on('close', () => void transport.close().then(() => server.close()));
      void server.connect(transport).then(() => transport.handleRequest(req, res, body));
    });
  });
  await new Promise<void>((resolve) => mcpServer.listen(0, '127.0.0.1', resolve));
  const address = mcpServer.address();
  mcpUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/mcp`;
});
afterEach(() => {
  calls.length = 0;
  receiver.exports.length = 0;
});
afterAll(async () => {
  removeSandboxes();
  await receiver.close();
  await new Promise((resolve) => mcpServer.close(resolve));
});

const script: ScriptedResponse[] = [
  { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_echo', name: 'mcp__remote__echo', input: { text: 'hi' } }] },
  { kind: 'message', blocks: [{ type: 'text', text: 'Echoed.' }] },
];
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const args = () => ['-p', 'echo hi', '--mcp-config', JSON.stringify({ mcpServers: { remote: { type: 'http', url: mcpUrl } } }), '--allowedTools', 'mcp__remote__echo'];

describe('trace context into MCP HTTP calls', () => {
  test('the tools/call carries the execute_tool span as _meta.traceparent and the traceparent header', async () => {
    const run = await runAgainst(script, args(), {
      ...makeSandbox({}),
      env: {
        CLAUDE_CODE_ENABLE_TELEMETRY: '1',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        TRACEPARENT: `00-${TRACE_ID}-00f067aa0ba902b7-01`,
      },
    });
    expect(run.code).toBe(0);
    // The fixture server lists two tools with broken schemas on purpose: those two warnings only.
    expect(run.stderr.trim().split('\n').filter((line) => !/tool "(bad_schema|not_object)" is not offered/.test(line))).toEqual([]);
    expect(run.stdout).toBe('Echoed.\n');
    expect(calls).toHaveLength(1);
    const [call] = calls;
    const span = receiver.spans().find((s) => s.name === 'execute_tool mcp__remote__echo');
    expect(span).toBeDefined();
    const expected = `00-${TRACE_ID}-${span!.spanId.toLowerCase()}-01`;
    expect(call!.meta?.['traceparent']).toBe(expected);
    expect(call!.headers['traceparent']).toBe(expected);
    // The echo's result reached the model (the call was an ordinary one otherwise).
    expect(JSON.stringify(run.server.requests[1]?.body?.messages.at(-1))).toContain('hi');
  });

  test('without telemetry nothing trace-related is sent', async () => {
    const run = await runAgainst(script, args(), { ...makeSandbox({}), env: { TRACEPARENT: `00-${TRACE_ID}-00f067aa0ba902b7-01` } });
    expect(run.stdout).toBe('Echoed.\n');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.meta?.['traceparent']).toBeUndefined();
    expect(calls[0]!.headers['traceparent']).toBeUndefined();
  });
});
