/**
 * `traceAgentRun` with the SDK's in-memory exporter around a real run over HTTP (the scripted
 * model on 127.0.0.1): a run span with one iteration per model call, the GenAI attributes, tool
 * spans with duration and error status, a retry span, and the events passed through unchanged.
 */
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { from, lastValueFrom, toArray } from 'rxjs';
import { afterEach, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { GENERAL_PURPOSE_AGENT } from '../../src/agents/definitions.js';
import { createContextGovernor } from '../../src/context/createContextGovernor.js';
import { traceAgentRun } from '../../src/fleet/tracing/traceAgentRun.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { agentLoop } from '../../src/loop/agentLoop.js';
import type { LoopEvent } from '../../src/loop/types.js';
import type { Script, ScriptedResponse } from '../../src/testing/script.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { defineTool } from '../../src/tools/defineTool.js';
import { createMessagesClient } from '../../src/transport/createMessagesClient.js';
import { hasToolResult, runTree, systemOf } from '../agents/helpers.js';
import { isCompaction, message, text, toolUse } from '../loop/helpers.js';

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

  test('subagents: each child an invoke_agent span under the Agent call that started it, its own model and tool spans beneath', async () => {
    const script = (request: MessagesRequest): ScriptedResponse => {
      if (systemOf(request) === GENERAL_PURPOSE_AGENT.prompt) {
        return hasToolResult(request) ? message([text('child found it')]) : message([toolUse('echo', { x: 'from the child' }, 'toolu_child_echo')]);
      }
      return hasToolResult(request)
        ? message([text('parent done')])
        : message([toolUse('Agent', { description: 'look', prompt: 'look it up', subagent_type: 'general-purpose' }, 'toolu_agent')]);
    };
    const run = await runTree(script, { tools: [echo] });
    try {
      expect(run.terminal.reason).toBe('completed');
      const spans = await lastValueFrom(from(run.events).pipe(traceAgentRun(provider.getTracer('test')), toArray())).then(() => exporter.getFinishedSpans());
      const [root, ...rest] = named(spans, 'invoke_agent rxagent');
      expect(rest).toEqual([]);
      const agentCall = named(spans, 'execute_tool Agent');
      expect(agentCall).toHaveLength(1);
      expect(agentCall[0]!.attributes['gen_ai.tool.call.id']).toBe('toolu_agent');
      const children = named(spans, 'invoke_agent subagent');
      expect(children).toHaveLength(1);
      const childSpan = children[0]!;
      expect(parentOf(childSpan)).toBe(agentCall[0]!.spanContext().spanId);
      expect(childSpan.attributes).toMatchObject({ 'rxagent.depth': 1, 'gen_ai.agent.name': 'general-purpose', 'rxagent.terminal_reason': 'completed' });
      // The child's two iterations, their model calls and its echo call are its own, not the parent's.
      const childId = childSpan.spanContext().spanId;
      const iterations = named(spans, 'rxagent.iteration');
      const childIterations = iterations.filter((i) => parentOf(i) === childId);
      expect(childIterations).toHaveLength(2);
      expect(iterations.filter((i) => parentOf(i) === root!.spanContext().spanId)).toHaveLength(2);
      const echoSpan = named(spans, 'execute_tool echo');
      expect(echoSpan).toHaveLength(1);
      expect(childIterations.map((i) => i.spanContext().spanId)).toContain(parentOf(echoSpan[0]!));
      // (No end-time comparison between spans: each span anchors its own clock at its start, so
      // two spans' times can disagree by a millisecond; the CI run saw a child "end" 0.7 ms late.)
      expect(spans.every((sp) => sp.spanContext().traceId === root!.spanContext().traceId)).toBe(true);
    } finally {
      await run.server.close();
    }
  });

  test('a compaction is a span under the iteration that compacted, with its trigger and token counts', async () => {
    const TOO_LONG: ScriptedResponse = { kind: 'http_error', status: 400, errorType: 'invalid_request_error', message: 'prompt is too long: 212345 tokens > 200000 maximum' };
    let main = 0;
    const server = await startScriptedServer({
      script: (request: MessagesRequest): ScriptedResponse => {
        if (isCompaction(request)) return message([text('SUMMARY: two echoes done.')]);
        const n = main++;
        if (n < 2) return message([toolUse('echo', { x: `round ${n} `.repeat(400) })]);
        if (n === 2) return TOO_LONG;
        return message([text('finished')]);
      },
    });
    const client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 0 });
    try {
      const governor = createContextGovernor({ client, keepRecentTokens: 100 });
      const events = await lastValueFrom(
        agentLoop({ model: 'claude-sonnet-4-5', prompt: 'echo twice', tools: [echo], client, contextGovernor: governor }).pipe(
          traceAgentRun(provider.getTracer('test')),
          toArray(),
        ),
      );
      expect(events.at(-1)).toMatchObject({ type: 'terminal', reason: 'completed' });
      const boundary = events.find((e) => e.type === 'compact_boundary');
      expect(boundary).toMatchObject({ trigger: 'reactive' });
      const spans = exporter.getFinishedSpans();
      const compactions = named(spans, 'rxagent.compaction');
      expect(compactions).toHaveLength(1);
      const pre = boundary?.type === 'compact_boundary' ? boundary.preTokens : -1;
      const post = boundary?.type === 'compact_boundary' ? boundary.postTokens : -1;
      expect(compactions[0]!.attributes).toEqual({ 'rxagent.compact.trigger': 'reactive', 'rxagent.compact.pre_tokens': pre, 'rxagent.compact.post_tokens': post });
      const iterationIds = named(spans, 'rxagent.iteration').map((i) => i.spanContext().spanId);
      expect(iterationIds).toContain(parentOf(compactions[0]!));
    } finally {
      await client.close();
      await server.close();
    }
  });
});

