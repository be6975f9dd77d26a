/** Fallback, transcripts, token budget, governor compaction, early abort: in-process model. */
import { describe, expect, it } from 'vitest';
import { lastValueFrom, of, toArray } from 'rxjs';
import { agentLoop } from '../../src/loop/agentLoop.js';
import type { AgentLoopOptions } from '../../src/loop/options.js';
import type { ContextGovernor, TranscriptRecord } from '../../src/loop/seams.js';
import type { TerminalEvent } from '../../src/loop/types.js';
import { ApiError } from '../../src/errors.js';
import { createCostBudget } from '../../src/loop/pricing.js';
import { validateMessagesRequest } from '../../src/testing/validateRequest.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { echoTool as echo, message, runSync, syncModel, text, toolUse, transitions, type FakeStep } from './helpers.js';

const run = (script: (n: number, request: MessagesRequest) => FakeStep, options: Partial<AgentLoopOptions> = {}) => runSync(script, options);

const overloaded = new ApiError(529, 'overloaded_error', 'Overloaded', true);

describe('model fallback', () => {
  it('tombstones the failed attempt, strips thinking from history, and keeps the fallback model', async () => {
    const thinkingTool = message([{ type: 'thinking', thinking: 'plan', signature: 'sig-primary' }, toolUse('echo', { x: 'a' })]);
    const r = await run(
      (n, request) => {
        if (n === 0) return thinkingTool;
        if (request.model === 'claude-sonnet-4-5') return { kind: 'partial', message: message([text('half')]), events: 3, error: overloaded };
        return message([text('from fallback')]);
      },
      { fallbackModel: 'claude-haiku-4-5', thinking: { type: 'enabled', budget_tokens: 2048 } },
    );
    expect(r.terminal.reason).toBe('completed');
    expect(r.requests.map((q) => q.model)).toEqual(['claude-sonnet-4-5', 'claude-sonnet-4-5', 'claude-haiku-4-5']);
    const tombstones = r.events.filter((e) => e.type === 'tombstone');
    expect(tombstones).toHaveLength(1);
    // The tombstoned uuid is the failed attempt's message (announced by its message_start).
    expect(r.events.some((e) => e.type === 'assistant_message' && tombstones[0]!.type === 'tombstone' && tombstones[0]!.uuids.includes(e.uuid))).toBe(false);
    expect(JSON.stringify(r.requests[2]!.messages)).not.toContain('sig-primary');
  });

  it('without a fallback model, overloaded after retries is an api_error with status 529', async () => {
    const r = await run(() => ({ kind: 'error', error: overloaded }));
    expect(r.terminal.reason).toBe('api_error');
    expect(r.terminal.error?.status).toBe(529);
  });

  it('a response that dies after a tool block leaves a valid history (orphan results)', async () => {
    const r = await run(() => ({
      kind: 'partial',
      message: message([toolUse('echo', { x: 'a' }), text('more')]),
      events: 5,
      error: new ApiError(500, 'api_error', 'died', false),
    }));
    expect(r.terminal.reason).toBe('api_error');
    const history = r.terminal.messages!;
    expect(history.at(-2)).toMatchObject({ role: 'assistant', content: [{ type: 'tool_use' }] });
    expect(history.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'tool_result' }] });
    expect(validateMessagesRequest({ model: 'm', max_tokens: 10, messages: [...history, { role: 'assistant', content: 'x' }] })).toEqual([]);
  });
});

describe('thinking blocks in requests (SPEC §7)', () => {
  const thinkingTool = message([{ type: 'thinking', thinking: 'plan', signature: 'sig-kept' }, toolUse('echo', { x: 'a' })]);
  const script = (n: number) => (n === 0 ? thinkingTool : message([text('done')]));

  it('with thinking enabled, the trajectory keeps its thinking block (first in the message)', async () => {
    const r = await run(script, { thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect(r.terminal.reason).toBe('completed');
    expect(r.requests[1]!.messages[1]).toMatchObject({ role: 'assistant', content: [{ type: 'thinking', signature: 'sig-kept' }, { type: 'tool_use' }] });
  });

  it('without thinking enabled, no request carries a thinking block; the history still has it', async () => {
    const r = await run(script);
    expect(r.terminal.reason).toBe('completed');
    expect(r.requests[1]!.thinking).toBeUndefined();
    expect(r.requests[1]!.messages[1]).toEqual({ role: 'assistant', content: [expect.objectContaining({ type: 'tool_use' })] });
    expect(JSON.stringify(r.terminal.messages)).toContain('sig-kept');
  });
});

describe('transcript seam', () => {
  it('appends every message in order, awaited before the next model request', async () => {
    const appended: TranscriptRecord[] = [];
    let pending = 0;
    const model = syncModel((n) => {
      expect(pending).toBe(0); // the previous append finished before this request
      return n === 0 ? message([toolUse('echo', { x: 'a' })]) : message([text('done')]);
    });
    const events = await lastValueFrom(
      agentLoop({
        model: 'claude-sonnet-4-5',
        prompt: 'go',
        tools: [echo],
        transcript: {
          append: async (records) => {
            pending++;
            await new Promise((resolve) => setTimeout(resolve, 5));
            appended.push(...records);
            pending--;
          },
        },
        deps: { callModel: model.callModel },
      }).pipe(toArray()),
    );
    expect((events.at(-1) as TerminalEvent).reason).toBe('completed');
    expect(appended.map((r) => r.type)).toEqual(['user', 'assistant', 'user', 'assistant']);
    // Each record's parent is the one before it.
    const uuids = appended.map((r) => ('uuid' in r ? r.uuid : ''));
    appended.slice(1).forEach((r, i) => expect('parentUuid' in r && r.parentUuid).toBe(uuids[i]));
  });
});

describe('token budget (SPEC §8)', () => {
  it('continues while under 90% of the budget, telling the model what is left', async () => {
    const r = await run(() => message([text('working')], { usage: { input_tokens: 10, output_tokens: 1000 } }), { tokenBudget: 3000 });
    // 1000, 2000 (< 2700: continue), 3000 (stop)
    expect(r.requests).toHaveLength(3);
    expect(transitions(r.events)).toEqual(['token_budget_continuation', 'token_budget_continuation']);
    expect(JSON.stringify(r.requests[1]!.messages.at(-1))).toContain('1000 of 3000');
    expect(r.terminal.reason).toBe('completed');
  });

  it('stops on diminishing returns after 3 continuations', async () => {
    const r = await run(() => message([text('w')], { usage: { input_tokens: 10, output_tokens: 100 } }), { tokenBudget: 1_000_000 });
    expect(r.requests).toHaveLength(4);
  });

  it('subagents never continue on budget', async () => {
    const r = await run(() => message([text('w')], { usage: { input_tokens: 10, output_tokens: 100 } }), { tokenBudget: 1_000_000, isSubagent: true });
    expect(r.requests).toHaveLength(1);
  });
});

describe('cost budget', () => {
  it('one budget object shared by two loops: the second starts over the cap and sends nothing', async () => {
    const budget = createCostBudget(0.4);
    const usage = { input_tokens: 100_000, output_tokens: 10_000 }; // $0.45 at Sonnet prices
    const first = await run(() => message([text('spent')], { usage }), { budget });
    expect(first.terminal.reason).toBe('completed');
    expect(first.terminal.costUsd).toBeCloseTo(0.45, 6);
    const second = await run(() => message([text('never')]), { budget });
    expect(second.terminal.reason).toBe('budget_exhausted');
    expect(second.requests).toHaveLength(0);
  });
});

describe('governor and aborts', () => {
  it('a compaction before the call replaces the history and emits a boundary', async () => {
    let calls = 0;
    const governor: ContextGovernor = {
      beforeCall: (input) =>
        ++calls === 2
          ? of({ type: 'compacted', messages: [{ role: 'user', content: 'summary' }], boundary: { trigger: 'auto', preTokens: 500, postTokens: 50 } })
          : of({ type: 'ok', messages: input.messages }),
      reactiveCompact: () => of({ type: 'failed', message: 'no' }),
    };
    const r = await run((n) => (n === 0 ? message([toolUse('echo', { x: 'a' })]) : message([text('done')])), { contextGovernor: governor });
    expect(r.terminal.reason).toBe('completed');
    // The compacted history, as the request carries it (a text block with the cache breakpoint).
    expect(r.requests[1]!.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'summary', cache_control: { type: 'ephemeral' } }] }]);
    expect(r.events.filter((e) => e.type === 'compact_boundary')).toMatchObject([{ trigger: 'auto', preTokens: 500, postTokens: 50 }]);
  });

  it('the governor gets the last reported usage and how many messages it covers', async () => {
    const inputs: { usage: unknown; since: number; length: number }[] = [];
    const governor: ContextGovernor = {
      beforeCall: (input) => {
        inputs.push({ usage: input.lastUsage, since: input.messagesSinceUsage, length: input.messages.length });
        return of({ type: 'ok', messages: input.messages });
      },
      reactiveCompact: () => of({ type: 'failed', message: 'no' }),
    };
    const usage = { input_tokens: 123, output_tokens: 45 };
    await run((n) => (n === 0 ? message([toolUse('echo', { x: 'a' })], { usage }) : message([text('done')])), { contextGovernor: governor });
    expect(inputs).toEqual([
      { usage: undefined, since: 0, length: 1 },
      { usage: expect.objectContaining(usage), since: 2, length: 3 },
    ]);
  });

  it('an already aborted signal ends aborted_streaming without a request', async () => {
    const controller = new AbortController();
    controller.abort();
    const r = await run(() => message([text('x')]), { signal: controller.signal });
    expect(r.terminal.reason).toBe('aborted_streaming');
    expect(r.requests).toHaveLength(0);
  });

  it('every event carries chainId and depth; depth grows per iteration', async () => {
    const r = await run((n) => (n < 2 ? message([toolUse('echo', { x: String(n) })]) : message([text('done')])), { chainId: 'chain-1' });
    expect(r.events.every((e) => e.chainId === 'chain-1' && typeof e.depth === 'number')).toBe(true);
    expect(r.events.filter((e) => e.type === 'iteration_start').map((e) => e.depth)).toEqual([0, 1, 2]);
  });
});
