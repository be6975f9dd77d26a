/**
 * The loop's timing in virtual time: fake models are `cold()` streams of Messages API events,
 * tools are timers. Letters in the expected diagrams (only the events named here are kept):
 * i iteration_start, s tool_start, r tool_result, a assistant_message, u user_message,
 * b compact_boundary, t transition, T terminal.
 */
import { describe, expect, it } from 'vitest';
import { of, tap, timer, type Observable } from 'rxjs';
import { agentLoop } from '../src/loop/agentLoop.js';
import type { AgentLoopOptions, CallModel } from '../src/loop/options.js';
import type { LoopEvent, TerminalEvent } from '../src/loop/types.js';
import type { ContextGovernor } from '../src/loop/seams.js';
import { ApiError } from '../src/errors.js';
import type { TransportOutput } from '../src/transport/types.js';
import { message, text, toolUse } from '../test/loop/helpers.js';
import { coldModel, EVENT_LETTERS, eventLetters, replyMarble, waitTool } from '../src/testing/index.js';
import { createTestScheduler } from './helpers/testScheduler.js';

const letters = (events$: Observable<LoopEvent>) => events$.pipe(eventLetters());
const L = Object.fromEntries(Object.values(EVENT_LETTERS).map((l) => [l, l]));


const base = (callModel: CallModel, extra: Partial<AgentLoopOptions> = {}) =>
  agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', ...extra, deps: { callModel, ...extra.deps } });

describe('agentLoop timing', () => {
  it('starts a tool at its block stop, while the model still streams (overlap)', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const first = replyMarble({ ...message([toolUse('wait', {})]), endDelayMs: 9 }); // block stop at 3, end at 13
      const second = replyMarble(message([text('done')]), { frame: 0 });
      const m1 = cold<TransportOutput>(first.marbles, first.values);
      const m2 = cold<TransportOutput>(second.marbles, second.values);
      const { callModel } = coldModel(m1, m2);
      expectObservable(letters(base(callModel, { tools: [waitTool(5)] }))).toBe('i--s----r----(autiaT|)', L);
      // The next iteration subscribes in the frame the response ended (its result was ready before).
      expectSubscriptions(m2.subscriptions).toBe('13ms (^!)');
    });
  });

  it('subscribes the next iteration in the frame the last tool result is ready', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const first = replyMarble({ ...message([toolUse('wait', {})]), endDelayMs: 9 });
      const second = replyMarble(message([text('done')]), { frame: 0 });
      const m1 = cold<TransportOutput>(first.marbles, first.values);
      const m2 = cold<TransportOutput>(second.marbles, second.values);
      const { callModel } = coldModel(m1, m2);
      expectObservable(letters(base(callModel, { tools: [waitTool(20)] }))).toBe('i--s---------a---------(rutiaT|)', L);
      expectSubscriptions(m2.subscriptions).toBe('23ms (^!)');
    });
  });

  it('emits the terminal in the frame the stream fails (api_error)', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const m1 = cold<TransportOutput>('--#', {}, new ApiError(500, 'api_error', 'boom', false));
      const { callModel } = coldModel(m1);
      expectObservable(letters(base(callModel))).toBe('i-(T|)', L);
    });
  });

  it('withholds prompt-too-long while compacting, then retries in the frame compaction ends', () => {
    createTestScheduler().run(({ cold, expectObservable, flush }) => {
      const tooLong = new ApiError(400, 'invalid_request_error', 'prompt is too long', false);
      const m1 = cold<TransportOutput>('--#', {}, tooLong);
      const done = replyMarble(message([text('done')]), { frame: 0 });
      const m2 = cold<TransportOutput>(done.marbles, done.values);
      const governor: ContextGovernor = {
        beforeCall: (input) => of({ type: 'ok', messages: input.messages }),
        reactiveCompact: (input) =>
          cold('---(c|)', {
            c: { type: 'compacted' as const, messages: input.messages, boundary: { trigger: 'reactive' as const, preTokens: 9, postTokens: 3 } },
          }),
      };
      const { callModel } = coldModel(m1, m2);
      let last: TerminalEvent | undefined;
      const events$ = base(callModel, { contextGovernor: governor }).pipe(
        tap((e) => {
          if (e.type === 'terminal') last = e;
          // Withheld: nothing before the terminal mentions the error.
          if (e.type === 'warning') throw new Error('unexpected warning');
        }),
      );
      expectObservable(letters(events$)).toBe('i----(btiaT|)', L);
      flush();
      expect(last?.reason).toBe('completed');
      expect(last?.error).toBeUndefined();
    });
  });

  it('re-enters on a blocking Stop hook with the feedback as a user message', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions, flush }) => {
      const r1 = replyMarble(message([text('answer')]), { frame: 0, start: 2 });
      const r2 = replyMarble(message([text('checked answer')]), { frame: 0, start: 10 });
      const m1 = cold<TransportOutput>(r1.marbles, r1.values);
      const m2 = cold<TransportOutput>(r2.marbles, r2.values);
      const { callModel, requests } = coldModel(m1, m2);
      const active: boolean[] = [];
      const events$ = base(callModel, {
        hooks: { stop: ({ stopHookActive }) => (active.push(stopHookActive), active.length === 1 ? { block: 'try again' } : {}) },
      });
      // The second call subscribes in the frame the hook blocked (2) and answers 10 frames later.
      expectObservable(letters(events$)).toBe('i-(auti)----(aT|)', L);
      expectSubscriptions(m2.subscriptions).toBe('--^---------!');
      flush();
      expect(active).toEqual([false, true]);
      expect(JSON.stringify(requests[1]!.messages.at(-1))).toContain('try again');
    });
  });

  it('an abort through the signal while a tool runs ends aborted_tools in that frame and stops the tool', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const first = replyMarble(message([toolUse('wait', {})]), { frame: 0, start: 1 });
      const m1 = cold<TransportOutput>(first.marbles, first.values);
      const { callModel } = coldModel(m1);
      const controller = new AbortController();
      timer(7).subscribe(() => controller.abort());
      const events$ = base(callModel, { tools: [waitTool(50)], signal: controller.signal });
      expectObservable(letters(events$)).toBe('i(sa)--(uT|)', L);
    });
  });

  it('an abort while the Stop hook runs ends aborted_tools when it answers; its block sends no request', () => {
    createTestScheduler().run(({ cold, expectObservable, flush }) => {
      const r1 = replyMarble(message([text('answer')]), { frame: 0, start: 2 });
      const m1 = cold<TransportOutput>(r1.marbles, r1.values);
      const { callModel, requests } = coldModel(m1);
      const controller = new AbortController();
      timer(4).subscribe(() => controller.abort());
      let last: TerminalEvent | undefined;
      const events$ = base(callModel, {
        signal: controller.signal,
        //                 i-a----(uT|)     the hook asked at 2, aborted at 4, answers at 7
        hooks: { stop: () => cold('-----(b|)', { b: { block: 'try again' } }) },
      }).pipe(tap((e) => e.type === 'terminal' && (last = e)));
      expectObservable(letters(events$)).toBe('i-a----(uT|)', L);
      flush();
      expect(last?.reason).toBe('aborted_tools');
      expect(requests).toHaveLength(1);
    });
  });

  it('plain unsubscribe tears everything down and emits nothing more', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const first = replyMarble({ ...message([toolUse('wait', {})]), endDelayMs: 9 });
      const m1 = cold<TransportOutput>(first.marbles, first.values);
      const { callModel } = coldModel(m1);
      expectObservable(letters(base(callModel, { tools: [waitTool(50)] })), '------!').toBe('i--s---', L);
      expectSubscriptions(m1.subscriptions).toBe('^-----!');
    });
  });

  it('is cold: each subscription runs its own loop', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const r = replyMarble(message([text('answer')]), { frame: 0, start: 1 });
      const m = cold<TransportOutput>(r.marbles, r.values);
      const { callModel, requests } = coldModel(m, m); // subscribed twice: two calls
      const events$ = base(callModel);
      expectObservable(letters(events$)).toBe('i(aT|)', L);
      expectObservable(letters(events$)).toBe('i(aT|)', L);
      return void expect(requests).toBeDefined();
    });
  });
});
