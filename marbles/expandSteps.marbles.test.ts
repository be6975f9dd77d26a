/**
 * `expandSteps` (operators/internal): `expand` over steps only, events straight out. Letters:
 * lower case are events, upper case are steps (projected by `step`, never emitted).
 */
import { describe, expect, it } from 'vitest';
import { EMPTY, NEVER, Observable, take } from 'rxjs';
import { expandSteps } from '../operators/internal/expandSteps.js';
import { createTestScheduler } from './helpers/testScheduler.js';

const isStep = (item: string): item is string => item === item.toUpperCase();

describe('expandSteps', () => {
  it('empty: an empty seed completes at once', () => {
    createTestScheduler().run(({ expectObservable }) => {
      expectObservable(expandSteps<string, string>(EMPTY, () => EMPTY, isStep)).toBe('|');
    });
  });

  it('one: a seed step projects one stretch of events', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const a = cold('-a-b|');
      expectObservable(expandSteps(cold('(A|)'), () => a, isStep)).toBe('-a-b|');
      expectSubscriptions(a.subscriptions).toBe('^---!');
    });
  });

  it('many: a step at the end of a stretch hands over in its frame; seed events pass too', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const stretches: Record<string, ReturnType<typeof cold<string>>> = { A: cold('-a-(B|)'), B: cold('--b-(C|)'), C: cold('c|') };
      const seed$ = cold('x(A|)');
      //                   x A                       seed: an event, then the first step
      //                    -a-(B|)                  step A, from frame 1
      //                       --b-(C|)              step B, from frame 4
      //                           c|                step C, from frame 8
      expectObservable(expandSteps(seed$, (s) => stretches[s]!, isStep)).toBe('x-a---b-c|');
      expectSubscriptions(stretches.A!.subscriptions).toBe(' -^--!');
      expectSubscriptions(stretches.B!.subscriptions).toBe(' ----^---!');
      expectSubscriptions(stretches.C!.subscriptions).toBe(' --------^!');
    });
  });

  it('two steps in flight run side by side (expand merges)', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const stretches: Record<string, ReturnType<typeof cold<string>>> = { A: cold('--a|'), B: cold('b|') };
      expectObservable(expandSteps(cold('(AB|)'), (s) => stretches[s]!, isStep)).toBe('b-a|');
    });
  });

  it('error: an error in a stretch errors the result and cuts the others', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const long = cold('-----z|');
      const failing = cold('--#', {}, new Error('boom'));
      const stretches: Record<string, ReturnType<typeof cold<string>>> = { A: long, B: failing };
      expectObservable(expandSteps(cold('(AB|)'), (s) => stretches[s]!, isStep)).toBe('--#', {}, new Error('boom'));
      expectSubscriptions(long.subscriptions).toBe('^-!');
    });
  });

  it('a throwing step or predicate errors the result', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const throwingStep = () => {
        throw new Error('step failed');
      };
      expectObservable(expandSteps(cold('-(A|)'), throwingStep, isStep)).toBe('-#', {}, new Error('step failed'));
      const throwingPredicate = (item: string): item is string => {
        throw new Error(`no ${item}`);
      };
      expectObservable(expandSteps(cold('--a|'), () => EMPTY, throwingPredicate)).toBe('--#', {}, new Error('no a'));
    });
  });

  it('never-ending: an early unsubscribe cuts the running stretch', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const endless = cold('-a-a-a-a-a-a');
      expectObservable(expandSteps(cold('(A|)'), () => endless, isStep), '^----!').toBe('-a-a-');
      expectSubscriptions(endless.subscriptions).toBe('^----!');
    });
  });

  it('stops at once when the consumer stops in a synchronous stretch (take)', () => {
    let made = 0;
    const sync$ = new Observable<string>((subscriber) => {
      for (let i = 0; i < 10 && !subscriber.closed; i++) {
        made++;
        subscriber.next('a');
      }
      subscriber.complete();
    });
    const seen: string[] = [];
    expandSteps<string, string>(new Observable((s) => (s.next('A'), s.complete())), () => sync$, isStep)
      .pipe(take(3))
      .subscribe((v) => seen.push(v));
    expect(seen).toEqual(['a', 'a', 'a']);
    expect(made).toBe(3);
  });

  it('is cold: each subscription projects its own steps', () => {
    let calls = 0;
    createTestScheduler().run(({ cold, expectObservable }) => {
      const steps$ = expandSteps(cold('(A|)'), () => (calls++, cold<string>('-a|')), isStep);
      expectObservable(steps$).toBe('-a|');
      expectObservable(steps$, '--^').toBe('---a|');
      expectObservable(expandSteps(NEVER, () => (calls++, EMPTY), isStep)).toBe('');
    });
    // Each subscription projected its own step once; the NEVER seed never.
    expect(calls).toBe(2);
  });
});
