/**
 * The command's traces, configured as Claude Code's telemetry is (CLAUDE_CODE_ENABLE_TELEMETRY,
 * OTEL_* variables), exported over real HTTP to an OTLP receiver on 127.0.0.1 while the real
 * `rxagent -p` runs against the scripted model: spans with the GenAI attributes, the service name,
 * the exporter's headers, a TRACEPARENT parent; protobuf by default, JSON when asked; nothing
 * sent when telemetry is off; an unsupported protocol said once and the run unharmed.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { parseOtlpHeaders, telemetryConfigFromEnv } from '../../src/fleet/tracing/telemetryConfig.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { assertBuilt, makeSandbox, removeSandboxes, runAgainst } from '../cli/helpers.js';
import { attr, startOtlpReceiver, type OtlpExport, type OtlpReceiver } from './otlpReceiver.js';

let receiver: OtlpReceiver;
let endpoint: string;
let exports: OtlpExport[];

beforeAll(async () => {
  assertBuilt();
  receiver = await startOtlpReceiver();
  endpoint = receiver.endpoint;
  exports = receiver.exports;
});
afterEach(() => {
  exports.length = 0;
});
afterAll(async () => {
  removeSandboxes();
  await receiver.close();
});

const script: ScriptedResponse[] = [
  { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_r', name: 'Read', input: { file_path: 'notes.txt' } }] },
  { kind: 'message', blocks: [{ type: 'text', text: 'It says hello.' }] },
];

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN = '00f067aa0ba902b7';

describe('rxagent -p with telemetry on', () => {
  test('OTLP/JSON: run, iteration, model and tool spans reach the receiver under the TRACEPARENT, with the service name and headers', async () => {
    const box = makeSandbox({ 'notes.txt': 'hello\n' });
    const run = await runAgainst(script, ['-p', '--output-format', 'json', 'what do my notes say?'], {
      ...box,
      env: {
        CLAUDE_CODE_ENABLE_TELEMETRY: '1',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
        OTEL_EXPORTER_OTLP_HEADERS: 'x-team=review%20bot,authorization=Bearer t0k',
        OTEL_SERVICE_NAME: 'reviewbot',
        TRACEPARENT: `00-${TRACE_ID}-${PARENT_SPAN}-01`,
      },
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const result = JSON.parse(run.stdout) as { session_id: string; result: string };
    expect(result.result).toBe('It says hello.');

    // The process exported before it exited: everything is here now.
    expect(exports.length).toBeGreaterThan(0);
    for (const e of exports) {
      expect(e.path).toBe('/v1/traces');
      expect(e.headers['content-type']).toContain('application/json');
      expect(e.headers['x-team']).toBe('review bot');
      expect(e.headers['authorization']).toBe('Bearer t0k');
    }
    const spans = receiver.spans();
    expect(spans.every((s) => s.service === 'reviewbot')).toBe(true);
    const named = (name: string) => spans.filter((s) => s.name === name);

    expect(spans.every((s) => s.traceId.toLowerCase() === TRACE_ID)).toBe(true);
    const [agent] = named('invoke_agent rxagent');
    expect(agent).toBeDefined();
    expect(agent!.parentSpanId?.toLowerCase()).toBe(PARENT_SPAN);
    expect(attr(agent!.attributes, 'gen_ai.conversation.id')).toBe(result.session_id);
    expect(attr(agent!.attributes, 'rxagent.terminal_reason')).toBe('completed');

    const iterations = named('rxagent.iteration');
    expect(iterations).toHaveLength(2);
    for (const it of iterations) expect(it.parentSpanId).toBe(agent!.spanId);
    const chats = spans.filter((s) => s.name.startsWith('chat '));
    expect(chats).toHaveLength(2);
    expect(chats.map((c) => attr(c.attributes, 'gen_ai.usage.input_tokens'))).toEqual([expect.any(Number), expect.any(Number)]);
    expect(chats.every((c) => (attr(c.attributes, 'gen_ai.usage.input_tokens') as number) > 0)).toBe(true);
    const [read] = named('execute_tool Read');
    expect(read).toBeDefined();
    expect(attr(read!.attributes, 'gen_ai.tool.call.id')).toBe('toolu_r');
    expect(iterations.map((i) => i.spanId)).toContain(read!.parentSpanId);
  });

  test('http/protobuf is the default wire: the same spans arrive as OTLP protobuf', async () => {
    const box = makeSandbox({ 'notes.txt': 'hello\n' });
    const run = await runAgainst(script, ['-p', 'what do my notes say?'], {
      ...box,
      env: { CLAUDE_CODE_ENABLE_TELEMETRY: '1', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('It says hello.\n');
    expect(exports.length).toBeGreaterThan(0);
    expect(exports.every((e) => e.headers['content-type'] === 'application/x-protobuf')).toBe(true);
    // Protobuf carries strings as raw UTF-8: the span names are in the bytes.
    const bytes = Buffer.concat(exports.map((e) => e.body)).toString('latin1');
    for (const name of ['invoke_agent rxagent', 'rxagent.iteration', 'execute_tool Read', 'gen_ai.usage.output_tokens', 'rxagent']) {
      expect(bytes).toContain(name);
    }
  });

  test('off unless CLAUDE_CODE_ENABLE_TELEMETRY is set: an endpoint alone sends nothing', async () => {
    const box = makeSandbox({ 'notes.txt': 'hello\n' });
    const run = await runAgainst(script, ['-p', 'what do my notes say?'], { ...box, env: { OTEL_EXPORTER_OTLP_ENDPOINT: endpoint } });
    expect(run.code).toBe(0);
    // The process has exited, so any export it made has arrived.
    expect(exports).toEqual([]);
  });

  test('an unsupported protocol is said once on stderr; the run is unharmed and nothing is sent', async () => {
    const box = makeSandbox({ 'notes.txt': 'hello\n' });
    const run = await runAgainst(script, ['-p', 'what do my notes say?'], {
      ...box,
      env: { CLAUDE_CODE_ENABLE_TELEMETRY: '1', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint },
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('It says hello.\n');
    expect(run.stderr.trim().split('\n')).toEqual([expect.stringMatching(/telemetry: OTLP protocol 'grpc' is not supported \(http\/protobuf, http\/json\)/)]);
    expect(exports).toEqual([]);
  });
});

describe('telemetryConfigFromEnv', () => {
  test.each([
    [{}, 'off'],
    [{ CLAUDE_CODE_ENABLE_TELEMETRY: '0' }, 'off'],
    [{ CLAUDE_CODE_ENABLE_TELEMETRY: '1', OTEL_TRACES_EXPORTER: 'none' }, 'off'],
    [{ CLAUDE_CODE_ENABLE_TELEMETRY: 'true' }, 'on'],
  ])('%j is %s', (env, kind) => {
    expect(telemetryConfigFromEnv(env).kind).toBe(kind);
  });

  test('defaults: otlp over http/protobuf to localhost:4318/v1/traces, service rxagent', () => {
    expect(telemetryConfigFromEnv({ CLAUDE_CODE_ENABLE_TELEMETRY: '1' })).toEqual({
      kind: 'on', exporters: ['otlp'], protocol: 'http/protobuf', url: 'http://localhost:4318/v1/traces', headers: {}, serviceName: 'rxagent', warnings: [],
    });
  });

  test('the traces-specific variables win; a traces endpoint is used as is; headers merge', () => {
    const config = telemetryConfigFromEnv({
      CLAUDE_CODE_ENABLE_TELEMETRY: '1',
      OTEL_TRACES_EXPORTER: 'otlp,console,zipkin',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc',
      OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9/',
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:7/custom',
      OTEL_EXPORTER_OTLP_HEADERS: 'a=1,b=2',
      OTEL_EXPORTER_OTLP_TRACES_HEADERS: 'b=3',
    });
    expect(config).toMatchObject({ kind: 'on', exporters: ['otlp', 'console'], protocol: 'http/json', url: 'http://127.0.0.1:7/custom', headers: { a: '1', b: '3' } });
    expect(config.warnings).toEqual([expect.stringContaining("'zipkin' is not supported")]);
  });

  test('the general endpoint gets /v1/traces, without a doubled slash', () => {
    const config = telemetryConfigFromEnv({ CLAUDE_CODE_ENABLE_TELEMETRY: '1', OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318/' });
    expect(config.kind === 'on' && config.url).toBe('http://127.0.0.1:4318/v1/traces');
  });

  test('grpc with only the console exporter still traces to the console', () => {
    const config = telemetryConfigFromEnv({ CLAUDE_CODE_ENABLE_TELEMETRY: '1', OTEL_TRACES_EXPORTER: 'console', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' });
    expect(config).toMatchObject({ kind: 'on', exporters: ['console'], warnings: [] });
  });

  test('OTLP headers: URL-decoded values, malformed pairs skipped with a warning', () => {
    const warnings: string[] = [];
    expect(parseOtlpHeaders('api-key=a%3Db, broken ,x= y ', warnings)).toEqual({ 'api-key': 'a=b', x: 'y' });
    expect(warnings).toEqual([expect.stringContaining('"broken"')]);
  });
});
