import { describe, expect, it } from 'vitest';
import { defer, Observable, take } from 'rxjs';
import { deliverEach } from '../operators/internal/deliverEach.js';
import { createTestScheduler } from './helpers/testScheduler.js';
import { endlessSyncSource } from '../src/testing/marbles/endlessSyncSource.js';

const lists: Record<string, readonly string[]> = { a: ['1', '2'], b: [], c: ['3'] };
const select = (key: string) => lists[key] ?? [key];
const boom = new Error('boom');

/**
 * What the loop builds around it: the sink is the very output the stage's end reaches, so one
 * marble shows when each item was delivered and when the stage ended.
 */
function delivered<T, R>(source$: Observable<T>, pick: (value: T) => readonly R[]): Observable<R> {
  return new Observable<R>((output) => source$.pipe(deliverEach(pick, (item: R) => output.next(item))).subscribe(output));
}

describe('deliverEach', () => {
  it('empty, one, many: each value its items, in order, in its frame; the stream itself emits nothing', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      expectObservable(delivered(cold<string>('---|'), select)).toBe('---|');
      expectObservable(delivered(cold<string>('-c|'), select)).toBe('-3|');
      const source = cold('-a---b-c-|');
      expectObservable(delivered(source, select)).toBe('-(12)--3-|');
      expectObservable(source.pipe(deliverEach(select, () => undefined))).toBe('---------|');
      expectSubscriptions(source.subscriptions).toBe(['^--------!', '^--------!']);
    });
  });

  it('error: the items before it, then the error in its frame', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(delivered(cold<string>('-c-#', undefined, boom), select)).toBe('-3-#', undefined, boom);
    });
  });

  it('never-ending source: an early unsubscribe stops the source', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('-c-c-c-c-');
      expectObservable(delivered(source, select), '^----!').toBe('-3-3-');
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });

  it('a throwing select errors the stream with what it threw', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-c-x-|');
      const throwing = (key: string) => {
        if (key === 'x') throw boom;
        return [key];
      };
      expectObservable(delivered(source, throwing)).toBe('-c-#', undefined, boom);
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('a throwing sink errors the stream with what it threw; the items after it are not delivered', () => {
    const seen: string[] = [];
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-c-a-c|');
      const sink = (item: string) => {
        if (item === '2') throw boom;
        seen.push(item);
      };
      expectObservable(source.pipe(deliverEach(select, sink))).toBe('---#', undefined, boom);
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
    expect(seen).toEqual(['3', '1']);
  });

  it('is cold: each subscription its own source subscription', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      let n = 0;
      const out = delivered(
        defer(() => cold('-v|', { v: `s${++n}` })),
        (v: string) => [v],
      );
      expectObservable(out).toBe('-a|', { a: 's1' });
      expectObservable(out, '---^').toBe('----b|', { b: 's2' });
    });
  });

  it('synchronous early unsubscribe: a synchronous infinite source stops at take(3), mid-list too', () => {
    const { source: infinite, emitted } = endlessSyncSource();
    const values: number[] = [];
    delivered(infinite, (i: number) => [i, i])
      .pipe(take(3))
      .subscribe((v) => values.push(v));
    expect(values).toEqual([0, 0, 1]);
    expect(emitted()).toBe(2);
  });
});
