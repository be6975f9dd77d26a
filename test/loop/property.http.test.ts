/**
 * Random scripts over real HTTP: responses and faults (cut connections, HTTP errors, SSE error
 * events, bad tool input, slow tools) and aborts at random times. Every run ends with exactly
 * one terminal, last; every request the server received is valid.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { z } from 'zod';
import { defineTool } from '../../src/tools/defineTool.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { runOverHttp, terminals } from './helpers.js';

const slowTool = defineTool({
  name: 'slow',
  description: 'waits a little',
  inputSchema: z.strictObject({ ms: z.number() }),
  isConcurrencySafe: true,
  interruptBehavior: 'cancel',
  call: ({ ms }, ctx) =>
    new Promise<string>((resolve) => {
      const timer = setTimeout(() => resolve(`slept ${ms}`), ms);
      ctx.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve('aborted');
      });
    }),
});

const responseArb: fc.Arbitrary<ScriptedResponse> = fc.oneof(
  fc.constant<ScriptedResponse>({ kind: 'message', blocks: [{ type: 'text', text: 'answer' }] }),
  fc.integer({ min: 0, max: 30 }).map((ms): ScriptedResponse => ({
    kind: 'message',
    blocks: [{ type: 'text', text: 'using' }, { type: 'tool_use', name: 'slow', input: { ms } }],
  })),
  fc.constant<ScriptedResponse>({ kind: 'message', blocks: [{ type: 'tool_use', name: 'slow', rawInput: '{"ms": 1' }] }),
  fc.constant<ScriptedResponse>({ kind: 'message', blocks: [{ type: 'text', text: 'cut' }], stopReason: 'max_tokens' }),
  fc.integer({ min: 1, max: 6 }).map((n): ScriptedResponse => ({
    kind: 'message',
    blocks: [{ type: 'tool_use', name: 'slow', input: { ms: 1 } }, { type: 'text', text: 'tail' }],
    cutAfterEvents: n,
  })),
  fc.constantFrom(400, 413, 429, 500, 529).map((status): ScriptedResponse => ({
    kind: 'http_error',
    status,
    ...(status === 413 ? { errorType: 'request_too_large' } : {}),
  })),
  fc.constant<ScriptedResponse>({
    kind: 'message',
    blocks: [{ type: 'text', text: 'partial' }],
    errorAfterEvents: { events: 3, type: 'overloaded_error', message: 'Overloaded' },
  }),
);

describe('agentLoop property over HTTP', () => {
  it('random scripts and aborts: one terminal, last; every request valid', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(responseArb, { minLength: 1, maxLength: 6 }),
        fc.option(fc.integer({ min: 0, max: 60 }), { nil: undefined }),
        async (script, abortAfterMs) => {
          const controller = new AbortController();
          const timer = abortAfterMs === undefined ? undefined : setTimeout(() => controller.abort(), abortAfterMs);
          try {
            const run = await runOverHttp(
              (_request, index) => script[Math.min(index, script.length - 1)]!,
              { tools: [slowTool], maxTurns: 8, maxRetries: 1, signal: controller.signal, fallbackModel: 'claude-haiku-4-5' },
            );
            expect(terminals(run.events)).toHaveLength(1);
            expect(run.events.at(-1)!.type).toBe('terminal');
            for (const r of run.requests) expect(r.validationErrors).toEqual([]);
          } finally {
            clearTimeout(timer);
          }
        },
      ),
      { numRuns: 20 },
    );
  }, 600_000);
});
