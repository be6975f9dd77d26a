/** Long runs and random scripts: no stack growth, exactly one terminal, every request valid. */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { lastValueFrom, toArray, reduce } from 'rxjs';
import { z } from 'zod';
import { agentLoop } from '../../src/loop/agentLoop.js';
import { ApiError, ConnectionError } from '../../src/errors.js';
import { defineTool } from '../../src/tools/defineTool.js';
import { validateMessagesRequest } from '../../src/testing/validateRequest.js';
import type { LoopEvent } from '../../src/loop/types.js';
import { message, syncModel, text, toolUse, type FakeStep } from './helpers.js';

const noop = defineTool({
  name: 'noop',
  description: 'Does nothing',
  inputSchema: z.strictObject({}),
  isConcurrencySafe: true,
  call: () => 'ok',
});

describe('agentLoop at scale', () => {
  it('runs 10,000 iterations against a synchronous model without stack growth', async () => {
    const model = syncModel((n) => (n < 9_999 ? message([toolUse('noop', {})]) : message([text('finished')])), { record: false });
    const summary = await lastValueFrom(
      agentLoop({
        model: 'claude-sonnet-4-5',
        prompt: 'go',
        tools: [noop],
        // Every turn repeats the same call on purpose: the repetition guard is not under test.
        repeatedToolCallLimit: 0,
        deps: { callModel: model.callModel },
      }).pipe(
        reduce(
          (acc, e: LoopEvent) => ({ terminals: acc.terminals + (e.type === 'terminal' ? 1 : 0), last: e }),
          { terminals: 0, last: undefined as LoopEvent | undefined },
        ),
      ),
    );
    expect(model.calls()).toBe(10_000);
    expect(summary.terminals).toBe(1);
    expect(summary.last?.type === 'terminal' && summary.last.reason).toBe('completed');
    expect(summary.last?.type === 'terminal' && summary.last.turnCount).toBe(10_000);
  }, 600_000); // CPU-bound: a loaded machine takes minutes
});

type Step =
  | { readonly t: 'text' }
  | { readonly t: 'tool' }
  | { readonly t: 'bad_json' }
  | { readonly t: 'max_tokens' }
  | { readonly t: 'malformed' }
  | { readonly t: 'thinking' }
  | { readonly t: 'http'; readonly status: number }
  | { readonly t: 'cut' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.constant<Step>({ t: 'text' }),
  fc.constant<Step>({ t: 'tool' }),
  fc.constant<Step>({ t: 'bad_json' }),
  fc.constant<Step>({ t: 'max_tokens' }),
  fc.constant<Step>({ t: 'malformed' }),
  fc.constant<Step>({ t: 'thinking' }),
  fc.constantFrom(400, 413, 500, 529).map((status): Step => ({ t: 'http', status })),
  fc.constant<Step>({ t: 'cut' }),
);

function toFake(step: Step): FakeStep {
  switch (step.t) {
    case 'text':
      return message([text('answer')]);
    case 'tool':
      return message([text('using'), toolUse('noop', {})]);
    case 'bad_json':
      return message([{ type: 'tool_use', name: 'noop', rawInput: '{"oops' }]);
    case 'max_tokens':
      return message([text('cut')], { stopReason: 'max_tokens' });
    case 'malformed':
      return message([text('calling')], { stopReason: 'tool_use' });
    case 'thinking':
      return message([{ type: 'thinking', thinking: 'hmm', signature: 'sig' }]);
    case 'http':
      return { kind: 'error', error: new ApiError(step.status, step.status === 529 ? 'overloaded_error' : 'api_error', step.status === 413 ? 'too large' : 'failed', false) };
    case 'cut':
      return { kind: 'error', error: new ConnectionError('socket closed mid-stream') };
  }
}

describe('agentLoop property', () => {
  it('random scripts: exactly one terminal, last; every request valid', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 12 }), fc.boolean(), async (steps, fallback) => {
        const model = syncModel((n) => toFake(steps[Math.min(n, steps.length - 1)]!));
        const events = await lastValueFrom(
          agentLoop({
            model: 'claude-sonnet-4-5',
            prompt: 'go',
            tools: [noop],
            maxTurns: 20,
            ...(fallback ? { fallbackModel: 'claude-haiku-4-5' } : {}),
            deps: { callModel: model.callModel },
          }).pipe(toArray()),
        );
        const terminalIdx = events.flatMap((e, i) => (e.type === 'terminal' ? [i] : []));
        expect(terminalIdx).toEqual([events.length - 1]);
        for (const request of model.requests) expect(validateMessagesRequest(request)).toEqual([]);
      }),
      { numRuns: 50 },
    );
  });
});
