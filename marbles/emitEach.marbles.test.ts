import { describe, expect, it } from 'vitest';
import { defer, take } from 'rxjs';
import { emitEach } from '../operators/internal/emitEach.js';
import { createTestScheduler } from './helpers/testScheduler.js';
import { endlessSyncSource } from '../src/testing/marbles/endlessSyncSource.js';

const lists: Record<string, readonly string[]> = { a: ['1', '2'], b: [], c: ['3'] };
const select = (key: string) => lists[key] ?? [key];
const boom = new Error('boom');

describe('emitEach', () => {
  it('empty, one, many: each value its items, in order, in its frame', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      expectObservable(cold('---|').pipe(emitEach(select))).toBe('---|');
      expectObservable(cold('-c|').pipe(emitEach(select))).toBe('-3|');
      const source = cold('-a---b-c-|');
      expectObservable(source.pipe(emitEach(select))).toBe('-(12)--3-|');
      expectSubscriptions(source.subscriptions).toBe('^--------!');
    });
  });

  it('error: the items before it, then the error in its frame', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-c-#', undefined, boom).pipe(emitEach(select))).toBe('-3-#', undefined, boom);
    });
  });

  it('never-ending source: an early unsubscribe stops the source', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot('-c-c-c-c-');
      expectObservable(source.pipe(emitEach(select)), '^----!').toBe('-3-3-');
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });

  it('a throwing select errors the output with what it threw', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-c-x-|');
      const throwing = (key: string) => {
        if (key === 'x') throw boom;
        return [key];
      };
      expectObservable(source.pipe(emitEach(throwing))).toBe('-c-#', undefined, boom);
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('is cold: each subscription its own source subscription', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      let n = 0;
      const out = defer(() => cold('-v|', { v: `s${++n}` })).pipe(emitEach((v: string) => [v]));
      expectObservable(out).toBe('-a|', { a: 's1' });
      expectObservable(out, '---^').toBe('----b|', { b: 's2' });
    });
  });

  it('synchronous early unsubscribe: a synchronous infinite source stops at take(3), mid-list too', () => {
    const { source: infinite, emitted } = endlessSyncSource();
    const values: number[] = [];
    infinite.pipe(emitEach((i: number) => [i, i]), take(3)).subscribe((v) => values.push(v));
    expect(values).toEqual([0, 0, 1]);
    expect(emitted()).toBe(2);
  });
});
