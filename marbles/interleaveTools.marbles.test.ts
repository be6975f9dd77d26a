import { describe, expect, it } from 'vitest';
import { catchError, concat, defer, EMPTY, endWith, filter, mergeMap, Observable, of, take, throwError, type OperatorFunction } from 'rxjs';
import { interleaveTools } from '../operators/interleaveTools.js';
import { createTestScheduler } from './helpers/testScheduler.js';
import { endlessSyncSource } from '../src/testing/marbles/endlessSyncSource.js';

/**
 * A scheduler in miniature: every `b` (a closed tool_use block) starts `run`; when the source
 * ends the batch `B` follows; when the source fails, the running call is answered at once
 * (synthetic `r`), then `B`, then the error is passed on, as `scheduleTools` does.
 */
const fakeTools =
  (run: Observable<string>): OperatorFunction<string, string> =>
  (source$) =>
    source$.pipe(
      filter((v) => v === 'b'),
      mergeMap(() => run),
      endWith('B'),
      catchError((error: unknown) => concat(of('r', 'B'), throwError(() => error))),
    );

const broken = new Error('stream broke');

describe('interleaveTools', () => {
  it('empty: completes with the source (a scheduler that saw nothing adds only its batch)', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('---|');
      expectObservable(source.pipe(interleaveTools(() => EMPTY))).toBe('---|');
      expectObservable(source.pipe(interleaveTools(fakeTools(cold('r|'))))).toBe('---(B|)');
      expectSubscriptions(source.subscriptions).toBe(['^--!', '^--!']);
    });
  });

  it('one value passes through in its frame', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a|').pipe(interleaveTools(() => EMPTY))).toBe('-a|');
    });
  });

  it('many: tool events join the model events in their frames, while the response streams', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a--b---c|');
      const run = cold('       --r|');
      //                    --r|      (started by b)
      const expected = '   -a--b-r-c(B|)';
      expectObservable(source.pipe(interleaveTools(fakeTools(run)))).toBe(expected);
      // One subscription to the response, whatever the scheduler does with it.
      expectSubscriptions(source.subscriptions).toBe('^--------!');
      expectSubscriptions(run.subscriptions).toBe('----^--!');
    });
  });

  it('within a frame the source value comes first, then what the scheduler made of it', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const echo: OperatorFunction<string, string> = (s$) => s$.pipe(mergeMap((v) => of(v.toUpperCase())));
      expectObservable(cold('-a-----b-----|').pipe(interleaveTools(echo))).toBe('-(aA)--(bB)--|');
    });
  });

  it('error: the source error is held until the scheduler drained, then re-emitted', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a--b-#', undefined, broken);
      const run = cold('       ------r|');
      const expected = '   -a--b-(rB#)';
      expectObservable(source.pipe(interleaveTools(fakeTools(run)))).toBe(expected, undefined, broken);
      expectSubscriptions(run.subscriptions).toBe('----^-!');
    });
  });

  it('error without tools: the source error passes in its frame', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a-#', undefined, broken).pipe(interleaveTools(() => EMPTY))).toBe('-a-#', undefined, broken);
    });
  });

  it("the scheduler's own error (not the source's) is emitted at once", () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const own = new Error('scheduler bug');
      const source = cold('-a-----|');
      expectObservable(source.pipe(interleaveTools(() => cold('---#', undefined, own)))).toBe('-a-#', undefined, own);
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('never-ending source: an early unsubscribe stops the source and the running tools', () => {
    createTestScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const source = hot('-a--b------');
      const run = cold('       ----r|');
      const unsub = '     ^------!';
      expectObservable(source.pipe(interleaveTools(fakeTools(run))), unsub).toBe('-a--b--');
      expectSubscriptions(source.subscriptions).toBe('^------!');
      expectSubscriptions(run.subscriptions).toBe('----^--!');
    });
  });

  it('a throwing `tools` callback errors the output with what it threw', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const thrown = new Error('bad scheduler factory');
      const source = cold('-a|');
      const throwing: OperatorFunction<string, string> = () => {
        throw thrown;
      };
      expectObservable(source.pipe(interleaveTools(throwing))).toBe('#', undefined, thrown);
      expectSubscriptions(source.subscriptions).toBe([]);
    });
  });

  it('is cold: a held error belongs to its own subscription', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      let n = 0;
      const source = defer(() => (++n === 1 ? cold('-a-#', undefined, broken) : cold('-a-|')));
      const out = source.pipe(interleaveTools(() => EMPTY));
      expectObservable(out).toBe('-a-#', undefined, broken);
      expectObservable(out, '----^').toBe('-----a-|');
    });
  });

  it('synchronous early unsubscribe: a synchronous infinite source stops at take(3)', () => {
    const { source: infinite, emitted } = endlessSyncSource();
    const values: number[] = [];
    const subscription = infinite.pipe(interleaveTools(() => EMPTY), take(3)).subscribe((v) => values.push(v));
    expect(values).toEqual([0, 1, 2]);
    expect(emitted()).toBe(3);
    expect(subscription.closed).toBe(true);
  });
});
