import { describe, expect, it } from 'vitest';
import { defer, Observable, take } from 'rxjs';
import { foldEach, type FoldEachOptions } from '../operators/internal/foldEach.js';
import { createTestScheduler } from './helpers/testScheduler.js';
import { endlessSyncSource } from '../src/testing/marbles/endlessSyncSource.js';

const boom = new Error('boom');

/**
 * What the loop builds around it: the sink is the very output the stage's end reaches, so one
 * marble shows when each item was delivered and when the stage ended.
 */
function delivered<S, V, R>(source$: Observable<V>, options: Omit<FoldEachOptions<S, V, R>, 'sink'>): Observable<R> {
  return new Observable<R>((output) => source$.pipe(foldEach({ ...options, sink: (item: R) => output.next(item) })).subscribe(output));
}

/** A running count: `+` adds one and says the new count, `d` is a direct item, `=` says the count twice, `_` nothing. */
const counting: Omit<FoldEachOptions<number, string, string>, 'sink'> = {
  seed: () => 0,
  direct: (_count, value) => (value === 'd' ? 'D' : undefined),
  fold: (count, value) => {
    if (value === '+') return { state: count + 1, items: [String(count + 1)] };
    if (value === '=') return { state: count, items: [String(count), String(count)] };
    return { state: count, items: [] };
  },
};

describe('foldEach', () => {
  it('empty, one, many: each value folded (or handed on directly), its items in order in its frame; the stream itself emits nothing', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      expectObservable(delivered(cold<string>('---|'), counting)).toBe('---|');
      expectObservable(delivered(cold<string>('-+|'), counting)).toBe('-1|');
      const source = cold<string>('-+-d-=-_-+|');
      expectObservable(delivered(source, counting)).toBe('-1-D-(11)2|');
      expectObservable(source.pipe(foldEach({ ...counting, sink: () => undefined }))).toBe('----------|');
      expectSubscriptions(source.subscriptions).toBe(['^---------!', '^---------!']);
    });
  });

  it('a direct item leaves the state as it is (no fold step)', () => {
    const folded: string[] = [];
    createTestScheduler().run(({ cold, expectObservable }) => {
      const spy = { ...counting, fold: (count: number, value: string) => (folded.push(value), counting.fold(count, value)) };
      expectObservable(delivered(cold<string>('-+d+|'), spy)).toBe('-1D2|');
    });
    expect(folded).toEqual(['+', '+']);
  });

  it('error: the items before it, then the error in its frame', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(delivered(cold<string>('-+-#', undefined, boom), counting)).toBe('-1-#', undefined, boom);
    });
  });

  it('never-ending source: an early unsubscribe stops the source', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot<string>('-+-+-+-+-');
      expectObservable(delivered(source, counting), '^----!').toBe('-1-2-');
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });

  it('a throwing fold or direct errors the stream with what it threw', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<string>('-+-x-|');
      const throwingFold = { ...counting, fold: (count: number, value: string) => (value === 'x' ? ((): never => { throw boom; })() : counting.fold(count, value)) };
      expectObservable(delivered(source, throwingFold)).toBe('-1-#', undefined, boom);
      const throwingDirect = { ...counting, direct: (_count: number, value: string) => (value === 'x' ? ((): never => { throw boom; })() : undefined) };
      expectObservable(delivered(source, throwingDirect)).toBe('-1-#', undefined, boom);
      expectSubscriptions(source.subscriptions).toBe(['^--!', '^--!']);
    });
  });

  it('a throwing sink errors the stream with what it threw; the items after it are not delivered', () => {
    const seen: string[] = [];
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold<string>('-+-=-+|');
      const sink = (item: string) => {
        if (seen.length === 2) throw boom;
        seen.push(item);
      };
      expectObservable(source.pipe(foldEach({ ...counting, sink }))).toBe('---#', undefined, boom);
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
    expect(seen).toEqual(['1', '1']);
  });

  it('is cold: each subscription its own seed and source subscription', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      let seeds = 0;
      const out = delivered(
        defer(() => cold<string>('-+|')),
        { ...counting, seed: () => 10 * ++seeds },
      );
      expectObservable(out).toBe('-a|', { a: '11' });
      expectObservable(out, '---^').toBe('----b|', { b: '21' });
    });
  });

  it('synchronous early unsubscribe: a synchronous infinite source stops at take(3), mid-list too', () => {
    const { source: infinite, emitted } = endlessSyncSource();
    const values: number[] = [];
    delivered(infinite, { seed: () => 0, fold: (_s: number, i: number) => ({ state: 0, items: [i, i] }) })
      .pipe(take(3))
      .subscribe((v) => values.push(v));
    expect(values).toEqual([0, 0, 1]);
    expect(emitted()).toBe(2);
  });
});
