/**
 * Any event sequence the loop can emit gives a consistent view: random scripts over real HTTP
 * (streamed text in chunks, thinking, tool calls, bad tool input, cut connections that the client
 * retries, overloaded errors that switch to the fallback model with a tombstone, HTTP errors,
 * aborts at random times). After each event: at most one message streams, no call id appears
 * twice, statuses agree with results. At the end: nothing runs, and the view's assistant
 * messages are exactly the history's (no retracted text left, none doubled).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { map, timer } from 'rxjs';
import { z } from 'zod';
import type { MessageParam } from '../../src/protocol/content.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { defineTool } from '../../src/tools/defineTool.js';
import type { AgentView } from '../../src/ui/types.js';
import { runOverHttp } from '../loop/helpers.js';
import { foldViews, messages, tools } from './helpers.js';

/** A tool that takes `ms` of real time; an abort unsubscribes its timer. */
const slowTool = defineTool({
  name: 'slow',
  description: 'takes a while',
  inputSchema: z.strictObject({ ms: z.number() }),
  isConcurrencySafe: true,
  interruptBehavior: 'cancel',
  call: ({ ms }) => timer(ms).pipe(map(() => ({ type: 'outcome' as const, output: `took ${ms} ms` }))),
});

const words = fc.array(fc.constantFrom('alpha ', 'beta ', 'gamma ', 'delta '), { minLength: 1, maxLength: 6 }).map((w) => w.join(''));

const responseArb: fc.Arbitrary<ScriptedResponse> = fc.oneof(
  fc.tuple(words, fc.integer({ min: 1, max: 8 })).map(([t, chunkSize]): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'text', text: t, chunkSize }] })),
  fc.tuple(words, fc.integer({ min: 0, max: 20 })).map(([t, ms]): ScriptedResponse => ({
    kind: 'message',
    blocks: [{ type: 'thinking', thinking: 'hmm', signature: 'sig' }, { type: 'text', text: t, chunkSize: 3 }, { type: 'tool_use', name: 'slow', input: { ms } }],
  })),
  fc.constant<ScriptedResponse>({ kind: 'message', blocks: [{ type: 'tool_use', name: 'slow', rawInput: '{"ms": 1' }] }),
  fc.constant<ScriptedResponse>({ kind: 'message', blocks: [{ type: 'tool_use', name: 'missing', input: {} }] }),
  fc.tuple(words, fc.integer({ min: 2, max: 7 })).map(([t, n]): ScriptedResponse => ({
    kind: 'message',
    blocks: [{ type: 'text', text: t, chunkSize: 2 }, { type: 'tool_use', name: 'slow', input: { ms: 1 } }],
    cutAfterEvents: n,
  })),
  fc.constantFrom(429, 500, 529).map((status): ScriptedResponse => ({ kind: 'http_error', status })),
  fc.constant<ScriptedResponse>({
    kind: 'message',
    blocks: [{ type: 'text', text: 'partial words here', chunkSize: 4 }],
    errorAfterEvents: { events: 4, type: 'overloaded_error', message: 'Overloaded' },
  }),
);

function checkStep(view: AgentView): void {
  const all = messages(view);
  expect(all.filter((m) => m.streaming).length).toBeLessThanOrEqual(1);
  const ids = tools(view).map((t) => t.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const t of tools(view)) {
    if (t.status === 'done') expect(t.result?.isError).toBe(false);
    if (t.status === 'error') expect(t.result?.isError).toBe(true);
    if (t.status === 'pending' || t.status === 'running') expect(t.result).toBeUndefined();
  }
}

/**
 * An assistant message as its texts and tool ids. Thinking is left out: after a fallback the loop
 * strips it from the history (it is bound to the model), while the view still shows it.
 */
const shapeOfHistory = (m: MessageParam) =>
  typeof m.content === 'string'
    ? m.content
    : m.content.flatMap((b) => (b.type === 'text' ? [b.text] : b.type === 'tool_use' ? [`[${b.id}]`] : [])).join('|');

describe('reduceView property over real loop runs', () => {
  it('every step is consistent and the final view matches the history', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(responseArb, { minLength: 1, maxLength: 5 }),
        fc.option(fc.integer({ min: 0, max: 40 }), { nil: undefined }),
        async (script, abortAfterMs) => {
          const controller = new AbortController();
          const timer = abortAfterMs === undefined ? undefined : setTimeout(() => controller.abort(), abortAfterMs);
          try {
            const run = await runOverHttp((_request, index) => script[Math.min(index, script.length - 1)]!, {
              tools: [slowTool],
              maxTurns: 6,
              maxRetries: 1,
              signal: controller.signal,
              fallbackModel: 'claude-haiku-4-5',
            });
            const views = foldViews(run.events);
            views.forEach(checkStep);
            const end = views.at(-1)!;
            expect(end.running).toBe(false);
            expect(end.terminal?.reason).toBe(run.terminal.reason);
            for (const t of tools(end)) expect(['done', 'error', 'cancelled']).toContain(t.status);
            const fromView = messages(end)
              .filter((m) => m.role === 'assistant')
              .map((m) => m.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : p.kind === 'tool' ? [`[${p.id}]`] : [])).join('|'));
            const fromHistory = (run.terminal.messages ?? []).filter((m) => m.role === 'assistant').map(shapeOfHistory);
            expect(fromView).toEqual(fromHistory);
          } finally {
            clearTimeout(timer);
          }
        },
      ),
      { numRuns: Number(process.env['RXAGENT_FC_RUNS'] ?? 25) },
    );
  }, 120_000);
});
