/**
 * `reportChild` in virtual time: each child event once in its envelope, in its frame, and the
 * outcome right after the terminal (src/agents/childReports.ts). The operator checklist: empty,
 * one, many, error, never-ending with early unsubscribe, a throwing callback, cold.
 *
 * Child letters: a an assistant_message, T a completed terminal, X an error terminal.
 * Report letters: e an event in its envelope, E a successful outcome, F a failure outcome.
 */
import { describe, expect, it } from 'vitest';
import { from, map, take, tap, type Observable } from 'rxjs';
import { reportChild, type ChildReport, type StartedChild } from '../src/agents/childReports.js';
import type { LoopEvent } from '../src/loop/types.js';
import { createTestScheduler } from './helpers/testScheduler.js';

const tracking = { chainId: 'child-chain', depth: 1 };
const usage = { input_tokens: 1, output_tokens: 1 };
const events: Record<string, LoopEvent> = {
  a: { type: 'assistant_message', uuid: 'u1', message: { id: 'm1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: 'end_turn', usage }, ...tracking } as unknown as LoopEvent,
  T: { type: 'terminal', reason: 'completed', lastAssistantText: 'the answer', turnCount: 1, usage, costUsd: 0.5, durationMs: 1, messages: [], ...tracking } as unknown as LoopEvent,
  X: { type: 'terminal', reason: 'model_error', error: { kind: 'api', message: 'overloaded' }, turnCount: 1, usage, costUsd: 0, durationMs: 1, messages: [], ...tracking } as unknown as LoopEvent,
};

const started = (events$: Observable<LoopEvent>): StartedChild => ({
  agentId: 'agent-1',
  agentType: 'helper',
  agentDepth: 1,
  parentToolUseId: 'toolu_1',
  background: false,
  events$,
});

const letter = (r: ChildReport): string => (r.type === 'event' ? 'e' : r.outcome.ok ? 'E' : 'F');

describe('reportChild (virtual time)', () => {
  it('empty: a child that completes without a terminal ends with a failure outcome', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(reportChild(started(cold<LoopEvent>('--|'))).pipe(map(letter))).toBe('--(F|)');
    });
  });

  it('one: the terminal in its envelope, then its outcome in the same frame', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(reportChild(started(cold('-(T|)', events))).pipe(map(letter))).toBe('-(eE|)');
    });
  });

  it('many: every event once, in its frame; the envelope says who the child is', () => {
    const seen: ChildReport[] = [];
    createTestScheduler().run(({ cold, expectObservable }) => {
      const reports$ = reportChild(started(cold('-a-a-(T|)', events)));
      expectObservable(reports$.pipe(map((r) => (seen.push(r), letter(r))))).toBe('-e-e-(eE|)');
    });
    const first = seen[0]!;
    expect(first.type === 'event' && first.data).toMatchObject({ type: 'subagent_event', agentId: 'agent-1', agentType: 'helper', parentToolUseId: 'toolu_1', background: false, event: events['a'] });
    const end = seen.at(-1)!;
    expect(end.type === 'end' && end.outcome.ok && end.outcome.output.answer).toBe('the answer');
  });

  it('an error terminal is a failure outcome', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(reportChild(started(cold('-a-(X|)', events))).pipe(map(letter))).toBe('-e-(eF|)');
    });
  });

  it('error: a child stream that errors errors the reports (no outcome is made up)', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(reportChild(started(cold('-a-#', events, new Error('boom')))).pipe(map(letter))).toBe('-e-#', undefined, new Error('boom'));
    });
  });

  it('never-ending: unsubscribing early unsubscribes from the child', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const child = cold('-a-a-a-', events);
      expectObservable(reportChild(started(child)).pipe(map(letter)), '^----!').toBe('-e-e-');
      expectSubscriptions(child.subscriptions).toBe('^----!');
    });
  });

  it('synchronous unsubscription: a reader taking one report stops a synchronous child at once', () => {
    let pulled = 0;
    const child$ = from([events['a']!, events['a']!, events['a']!, events['T']!]).pipe(tap(() => pulled++));
    const taken: ChildReport[] = [];
    reportChild(started(child$)).pipe(take(1)).subscribe((r) => taken.push(r));
    expect(taken.map(letter)).toEqual(['e']);
    expect(pulled).toBe(1);
  });

  it('a throwing reader of the terminal errors the reports instead of throwing into the child', () => {
    const hostile = { ...events['T'] } as Record<string, unknown>;
    Object.defineProperty(hostile, 'costUsd', { get: () => { throw new Error('bad terminal'); } });
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(reportChild(started(cold('-a-T|', { a: events['a']!, T: hostile as unknown as LoopEvent }))).pipe(map(letter))).toBe('-e-(e#)', undefined, new Error('bad terminal'));
    });
  });

  it('cold: nothing is subscribed before the reports are, and each subscriber gets its own run', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const child = cold('-(T|)', events);
      const reports$ = reportChild(started(child)).pipe(map(letter));
      expectObservable(reports$, '--^').toBe('---(eE|)');
      expectObservable(reports$, '----^').toBe('-----(eE|)');
      expectSubscriptions(child.subscriptions).toBe(['--^!', '----^!']);
    });
  });
});
