/**
 * `traceAgentRun` with the SDK's in-memory exporter around a real run over HTTP (the scripted
 * model on 127.0.0.1): a run span with one iteration per model call, the GenAI attributes, tool
 * spans with duration and error status, a retry span, and the events passed through unchanged.
 */
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { lastValueFrom, toArray } from 'rxjs';
import { afterEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { traceAgentRun } from '../../src/fleet/tracing/traceAgentRun.js';
import { agentLoop } from '../../src/loop/agentLoop.js';
import type { LoopEvent } from '../../src/loop/types.js';
import type { Script } from '../../src/testing/script.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { defineTool } from '../../src/tools/defineTool.js';
import { createMessagesClient } from '../../src/transport/createMessagesClient.js';

const failing = defineTool({
  name: 'explode',
  description: 'always fails',
  inputSchema: z.strictObject({}),
  isConcurrencySafe: true,
  call: (): string => {
    throw new Error('kaboom');
  },
});
const echo = defineTool({
  name: 'echo',
  description: 'echoes',
  inputSchema: z.strictObject({ x: z.string() }),
  isConcurrencySafe: true,
  call: (input: { x: string }) => input.x,
});

const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
afterEach(() => exporter.reset());

async function tracedRun(script: Script, maxRetries = 0): Promise<{ events: LoopEvent[]; spans: ReadableSpan[] }> {
  const server = await startScriptedServer({ script });
  const client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'test-key', maxRetries, retryBaseDelayMs: 1, retryMaxDelayMs: 2 });
  try {
    const events = await lastValueFrom(
      agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', tools: [echo, failing], client }).pipe(
        traceAgentRun(provider.getTracer('test'), { sessionId: 'sess-1' }),
        toArray(),
      ),
    );
    return { events, spans: exporter.getFinishedSpans() };
  } finally {
    await client.close();
    await server.close();
  }
}

const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;
const named = (spans: ReadableSpan[], prefix: string) => spans.filter((s) => s.name.startsWith(prefix));

describe('traceAgentRun', () => {
  test('run → iterations → model calls and tool calls, with the GenAI attributes and tool errors', async () => {
    const { events, spans } = await tracedRun([
      { kind: 'http_error', status: 529, errorType: 'overloaded_error' },
      {
        kind: 'message',
        blocks: [{ type: 'tool_use', id: 'toolu_e', name: 'echo', input: { x: 'hi' } }, { type: 'tool_use', id: 'toolu_x', name: 'explode', input: {} }],
        usage: { input_tokens: 120, output_tokens: 30, cache_read_input_tokens: 7, cache_creation_input_tokens: 5 },
      },
      { kind: 'message', blocks: [{ type: 'text', text: 'done' }], usage: { input_tokens: 200, output_tokens: 4 } },
    ], 1);
    expect(events[events.length - 1]).toMatchObject({ type: 'terminal', reason: 'completed' });

    const [run, ...others] = named(spans, 'invoke_agent');
    expect(others).toEqual([]);
    expect(run!.attributes).toMatchObject({ 'gen_ai.operation.name': 'invoke_agent', 'gen_ai.conversation.id': 'sess-1', 'rxagent.terminal_reason': 'completed', 'rxagent.turn': 2 });
    expect(parentOf(run!)).toBeUndefined();

    const iterations = named(spans, 'rxagent.iteration');
    expect(iterations).toHaveLength(2);
    expect(iterations.every((s) => parentOf(s) === run!.spanContext().spanId)).toBe(true);

    const models = named(spans, 'chat ');
    expect(models).toHaveLength(2);
    expect(models.map((s) => parentOf(s))).toEqual(iterations.map((s) => s.spanContext().spanId));
    expect(models[0]!.attributes).toMatchObject({
      'gen_ai.request.model': 'claude-sonnet-4-5',
      'gen_ai.usage.input_tokens': 120,
      'gen_ai.usage.output_tokens': 30,
      'gen_ai.usage.cache_read.input_tokens': 7,
      'gen_ai.usage.cache_creation.input_tokens': 5,
      'gen_ai.response.finish_reasons': ['tool_use'],
    });
    expect(models[1]!.attributes['gen_ai.response.finish_reasons']).toEqual(['end_turn']);

    const retries = named(spans, 'rxagent.retry');
    expect(retries).toHaveLength(1);
    expect(retries[0]!.attributes).toMatchObject({ 'rxagent.retry.attempt': 1, 'rxagent.retry.status': 529 });
    expect(parentOf(retries[0]!)).toBe(models[0]!.spanContext().spanId);

    const tools = named(spans, 'execute_tool');
    expect(tools.map((s) => s.attributes['gen_ai.tool.name']).sort()).toEqual(['echo', 'explode']);
    expect(tools.every((s) => parentOf(s) === iterations[0]!.spanContext().spanId)).toBe(true);
    expect(tools.every((s) => typeof s.attributes['rxagent.tool.duration_ms'] === 'number')).toBe(true);
    const exploded = tools.find((s) => s.attributes['gen_ai.tool.name'] === 'explode')!;
    expect(exploded.status.code).toBe(2); // SpanStatusCode.ERROR
    expect(exploded.status.message).toContain('kaboom');
    expect(tools.find((s) => s.attributes['gen_ai.tool.name'] === 'echo')!.status.code).toBe(0);
  });

  test('events pass through unchanged and in order', async () => {
    const script: Script = [{ kind: 'message', blocks: [{ type: 'text', text: 'hello' }] }];
    const server = await startScriptedServer({ script });
    const client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 });
    try {
      const plain = await lastValueFrom(agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', client }).pipe(toArray()));
      const traced = await tracedRun(script);
      expect(traced.events.map((e) => e.type)).toEqual(plain.map((e) => e.type));
    } finally {
      await client.close();
      await server.close();
    }
  });

  test('a failed run sets an error status on the run span; an early unsubscribe ends every open span', async () => {
    const failed = await tracedRun([{ kind: 'http_error', status: 400, errorType: 'invalid_request_error', message: 'bad' }]);
    const run = named(failed.spans, 'invoke_agent')[0]!;
    expect(run.status.code).toBe(2);
    expect(run.attributes['rxagent.terminal_reason']).not.toBe('completed');
    exporter.reset();

    const server = await startScriptedServer({ script: [{ kind: 'stall' }] });
    const client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 });
    try {
      await new Promise<void>((resolveStarted) => {
        const subscription = agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', client })
          .pipe(traceAgentRun(provider.getTracer('test')))
          .subscribe((event) => {
            if (event.type === 'iteration_start') queueMicrotask(() => (subscription.unsubscribe(), resolveStarted()));
          });
      });
      const spans = exporter.getFinishedSpans();
      expect(named(spans, 'invoke_agent')).toHaveLength(1);
      expect(named(spans, 'rxagent.iteration')).toHaveLength(1);
      expect(named(spans, 'chat ')).toHaveLength(1);
      expect(named(spans, 'invoke_agent')[0]!.status.message).toBe('unsubscribed');
    } finally {
      await client.close();
      await server.close();
    }
  });

  test('with the API alone (no SDK registered) the default tracer records nothing and the run is untouched', async () => {
    const server = await startScriptedServer({ script: [{ kind: 'message', blocks: [{ type: 'text', text: 'x' }] }] });
    const client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 });
    try {
      const events = await lastValueFrom(agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', client }).pipe(traceAgentRun(trace.getTracer('none')), toArray()));
      expect(events[events.length - 1]).toMatchObject({ type: 'terminal', reason: 'completed' });
      expect(exporter.getFinishedSpans()).toEqual([]);
    } finally {
      await client.close();
      await server.close();
    }
  });
});
