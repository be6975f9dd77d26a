/**
 * Every terminal reason over real HTTP against the scripted model server; every request the
 * server received must be valid.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { of } from 'rxjs';
import { defineTool } from '../../src/tools/defineTool.js';
import { gate } from '../../src/testing/gate.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import type { ContextGovernor } from '../../src/loop/seams.js';
import { message, runOverHttp, taggedEchoTool as echo, terminals, text, toolUse, transitions, type HttpRun } from './helpers.js';

const slow = defineTool({
  name: 'slow',
  description: 'Waits until aborted',
  inputSchema: z.strictObject({}),
  isConcurrencySafe: true,
  interruptBehavior: 'cancel',
  call: (_input: Record<string, never>, ctx) =>
    new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'))),
});

function expectValid(run: HttpRun): void {
  for (const r of run.requests) expect(r.validationErrors).toEqual([]);
  expect(terminals(run.events)).toHaveLength(1);
  expect(run.events[run.events.length - 1]!.type).toBe('terminal');
}

const final = message([text('all done')]);

describe('agentLoop terminals over HTTP', () => {
  it('completed: a tool round then a final answer', async () => {
    const run = await runOverHttp([message([text('calling'), toolUse('echo', { x: 'a' })]), final], { tools: [echo] });
    expectValid(run);
    expect(run.terminal.reason).toBe('completed');
    expect(run.terminal.turnCount).toBe(2);
    expect(run.terminal.lastAssistantText).toBe('all done');
    expect(run.requests).toHaveLength(2);
    expect(transitions(run.events)).toEqual(['next_turn']);
    const second = run.requests[1]!.body!.messages;
    expect(second[2]).toMatchObject({ role: 'user', content: [{ type: 'tool_result', content: 'echo:a' }] });
    expect(run.terminal.usage.outputTokens).toBeGreaterThan(0);
    expect(run.terminal.costUsd).toBeGreaterThan(0);
  });

  it('max_turns: maxTurns 1 runs the tool, sends no second request', async () => {
    const run = await runOverHttp([message([toolUse('echo', { x: 'a' })]), final], { tools: [echo], maxTurns: 1 });
    expectValid(run);
    expect(run.terminal.reason).toBe('max_turns');
    expect(run.requests).toHaveLength(1);
    expect(run.events.some((e) => e.type === 'tool_result')).toBe(true);
  });

  it('hook_stopped: a PostToolBatch hook blocks', async () => {
    const run = await runOverHttp([message([toolUse('echo', { x: 'a' })]), final], {
      tools: [echo],
      hooks: { postToolBatch: async () => ({ block: 'enough' }) },
    });
    expectValid(run);
    expect(run.terminal.reason).toBe('hook_stopped');
    expect(run.requests).toHaveLength(1);
  });

  it('stop_hook_prevented and the Stop hook re-entry', async () => {
    const seen: boolean[] = [];
    const run = await runOverHttp([final, final], {
      hooks: {
        stop: async ({ stopHookActive }) => {
          seen.push(stopHookActive);
          return seen.length === 1 ? { block: 'please check your work' } : { preventContinuation: 'stop now' };
        },
      },
    });
    expectValid(run);
    expect(run.terminal.reason).toBe('stop_hook_prevented');
    expect(seen).toEqual([false, true]);
    expect(transitions(run.events)).toEqual(['stop_hook_blocking']);
    expect(run.terminal.turnCount).toBe(2);
    const last = run.requests[1]!.body!.messages.at(-1)!;
    expect(JSON.stringify(last)).toContain('please check your work');
  });

  it('aborted_streaming: the signal aborts while the response streams', async () => {
    const controller = new AbortController();
    // The response never ends (its end waits on a gate nobody opens); the abort comes with its
    // first event, so it lands mid-stream however slow the machine is.
    const neverEnds = gate();
    const run = await runOverHttp([message([text('partial')], { endAfter: neverEnds.promise })], {
      signal: controller.signal,
      onEvent: (e) => {
        if (e.type === 'model') controller.abort();
      },
    });
    expectValid(run);
    expect(run.terminal.reason).toBe('aborted_streaming');
  });

  it('aborted_tools: the signal aborts while a tool runs; the orphan gets a synthetic result', async () => {
    const controller = new AbortController();
    const run = await runOverHttp([message([toolUse('slow', {})]), final], {
      tools: [slow],
      signal: controller.signal,
      // Abort once the response is complete (the assistant message is out) while the tool, started
      // when its block closed, still runs: the tools phase, not the stream, is interrupted.
      onEvent: (e) => {
        if (e.type === 'assistant_message') controller.abort();
      },
    });
    expectValid(run);
    expect(run.terminal.reason).toBe('aborted_tools');
    const history = run.terminal.messages!;
    expect(history.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'tool_result', is_error: true }] });
  });

  it('blocking_limit and rapid_refill_breaker come from the context governor, with no request', async () => {
    for (const type of ['blocking_limit', 'rapid_refill_breaker'] as const) {
      const governor: ContextGovernor = {
        beforeCall: () => of({ type, message: 'full' }),
        reactiveCompact: () => of({ type: 'failed', message: 'no' }),
      };
      const run = await runOverHttp([final], { contextGovernor: governor });
      expectValid(run);
      expect(run.terminal.reason).toBe(type);
      expect(run.requests).toHaveLength(0);
    }
  });

  it('prompt_too_long: withheld, one reactive compaction, then the error surfaces', async () => {
    let compactions = 0;
    const governor: ContextGovernor = {
      beforeCall: (input) => of({ type: 'ok', messages: input.messages }),
      reactiveCompact: (input) => {
        compactions++;
        return of({
          type: 'compacted',
          messages: [{ role: 'user', content: `summary of earlier work (${input.messages.length} messages)` }],
          boundary: { trigger: 'reactive', preTokens: 1000, postTokens: 100 },
        });
      },
    };
    const tooLong: ScriptedResponse = { kind: 'http_error', status: 400, errorType: 'invalid_request_error', message: 'prompt is too long: 300000 tokens > 200000 maximum' };
    const run = await runOverHttp(() => tooLong, { contextGovernor: governor });
    expectValid(run);
    expect(run.terminal.reason).toBe('prompt_too_long');
    expect(compactions).toBe(1);
    expect(run.requests).toHaveLength(2);
    expect(transitions(run.events)).toEqual(['reactive_compact_retry']);
    expect(run.events.filter((e) => e.type === 'compact_boundary')).toHaveLength(1);
    expect(run.requests[1]!.body!.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'summary of earlier work (1 messages)', cache_control: { type: 'ephemeral' } }] }]);
    // Withheld: no event before the terminal carried the error.
    expect(run.events.filter((e) => e.type === 'warning')).toEqual([]);
  });

  it('prompt too long recovered by compaction never shows the error', async () => {
    const governor: ContextGovernor = {
      beforeCall: (input) => of({ type: 'ok', messages: input.messages }),
      reactiveCompact: (input) =>
        of({ type: 'compacted', messages: input.messages.slice(-1), boundary: { trigger: 'reactive', preTokens: 10, postTokens: 5 } }),
    };
    const run = await runOverHttp(
      [{ kind: 'http_error', status: 413, errorType: 'request_too_large', message: 'request too large' }, final],
      { contextGovernor: governor },
    );
    expectValid(run);
    expect(run.terminal.reason).toBe('completed');
    expect(run.terminal.error).toBeUndefined();
  });

  it('model_error: max_tokens 4 times (3 recovery requests), then the withheld error surfaces', async () => {
    const run = await runOverHttp(() => message([text('partial ')], { stopReason: 'max_tokens' }));
    expectValid(run);
    expect(run.terminal.reason).toBe('model_error');
    expect(run.terminal.error?.kind).toBe('max_output_tokens');
    expect(run.requests).toHaveLength(4);
    expect(transitions(run.events)).toEqual(Array(3).fill('max_output_tokens_recovery'));
  });

  it('api_error: a 500 with no retries left names the status', async () => {
    const run = await runOverHttp([{ kind: 'http_error', status: 500, errorType: 'api_error', message: 'boom' }]);
    expectValid(run);
    expect(run.terminal.reason).toBe('api_error');
    expect(run.terminal.error?.status).toBe(500);
  });

  it('malformed_tool_use_exhausted: stop_reason tool_use without a tool block, 1 retry', async () => {
    const run = await runOverHttp(() => message([text('I will call a tool')], { stopReason: 'tool_use' }));
    expectValid(run);
    expect(run.terminal.reason).toBe('malformed_tool_use_exhausted');
    expect(run.requests).toHaveLength(2);
  });

  it('budget_exhausted: checked before every model call', async () => {
    const usage = { input_tokens: 100_000, output_tokens: 10_000 };
    const run = await runOverHttp(() => message([toolUse('echo', { x: 'a' })], { usage }), { tools: [echo], maxBudgetUsd: 0.5 });
    expectValid(run);
    expect(run.terminal.reason).toBe('budget_exhausted');
    // $0.45 per response at Sonnet prices: the third call is refused.
    expect(run.requests).toHaveLength(2);
  });

  it('turn_setup_failed: a UserPromptSubmit hook that throws', async () => {
    const run = await runOverHttp([final], {
      hooks: {
        userPromptSubmit: async () => {
          throw new Error('hook crashed');
        },
      },
    });
    expectValid(run);
    expect(run.terminal.reason).toBe('turn_setup_failed');
    expect(run.requests).toHaveLength(0);
  });

  it('model fallback: overloaded primary, tombstone, then the fallback model answers', async () => {
    const run = await runOverHttp(
      (request) =>
        request.model === 'claude-sonnet-4-5'
          ? { kind: 'http_error', status: 529, errorType: 'overloaded_error', message: 'overloaded' }
          : final,
      { fallbackModel: 'claude-haiku-4-5' },
    );
    expectValid(run);
    expect(run.terminal.reason).toBe('completed');
    expect(run.requests.map((r) => r.body?.model)).toEqual(['claude-sonnet-4-5', 'claude-haiku-4-5']);
  });
});
