import { describe, expect, it } from 'vitest';
import { asyncScheduler, defer, EMPTY, map, NEVER, take } from 'rxjs';
import { idleTimeout } from '../operators/idleTimeout.js';
import { createTestScheduler } from './helpers/testScheduler.js';
import { endlessSyncSource } from '../src/testing/marbles/endlessSyncSource.js';

const idle = new Error('idle');
const onlyC = (v: string) => v.startsWith('c');
const watch = <T>(ms: number, counts?: (v: T) => boolean, makeError: () => unknown = () => idle) =>
  idleTimeout<T>({ ms, counts, error: makeError, scheduler: asyncScheduler });

describe('idleTimeout', () => {
  it('values that do not count pass through but do not restart the timer (pings)', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-c-p-p-p-p-p-p-p');
      expectObservable(source.pipe(watch(3, onlyC))).toBe('-c-p#', undefined, idle);
      expectSubscriptions(source.subscriptions).toBe('^---!');
    });
  });

  it('counted values restart it; by default every value counts', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      // (a timer due in the same frame as a value fires after it: the value was scheduled first)
      expectObservable(cold('-c--c--c------').pipe(watch(3, onlyC))).toBe('-c--c--c--#', undefined, idle);
      expectObservable(cold('-p--p--p------').pipe(watch(3))).toBe('-p--p--p--#', undefined, idle);
    });
  });

  it('never: fails after ms', () => {
    createTestScheduler().run(({ expectObservable }) => {
      expectObservable(NEVER.pipe(watch(3))).toBe('---#', undefined, idle);
    });
  });

  it('passes empty, one and many through when they are never idle for ms', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      expectObservable(EMPTY.pipe(watch(5))).toBe('|');
      const one = cold('-c|');
      expectObservable(one.pipe(watch(5, onlyC))).toBe('-c|');
      expectSubscriptions(one.subscriptions).toBe('^-!');
      const many = cold('c-c-c-c-c-c|');
      expectObservable(many.pipe(watch(3, onlyC))).toBe('c-c-c-c-c-c|');
      expectSubscriptions(many.subscriptions).toBe('^----------!');
    });
  });

  it('passes the source error through (no later idle error)', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-c-#');
      expectObservable(source.pipe(watch(5, onlyC))).toBe('-c-#');
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('never-ending source: an early unsubscribe cancels the source and the timer', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-c-c-c-c-');
      expectObservable(source.pipe(watch(5, onlyC)), '^--!').toBe('-c-');
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('a throwing counts callback errors the stream with what it threw; so does a throwing error factory', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const bad = new Error('counts failed');
      const throwingCounts = (v: string) => {
        if (v === 'x') throw bad;
        return true;
      };
      expectObservable(cold('-c-x-c').pipe(watch(5, throwingCounts))).toBe('-c-#', undefined, bad);
      const boom = new Error('factory failed');
      expectObservable(NEVER.pipe(watch(3, undefined, () => { throw boom; }))).toBe('---#', undefined, boom);
    });
  });

  it('is cold: each subscription has its own timer', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      let n = 0;
      const source = defer(() => {
        const id = ++n;
        return cold('-c-p-p-p-p').pipe(map((v) => `${v}${id}`));
      });
      const watched = source.pipe(watch(3, onlyC));
      expectObservable(watched).toBe('-a-b#', { a: 'c1', b: 'p1' }, idle);
      expectObservable(watched, '--^').toBe('---a-b#', { a: 'c2', b: 'p2' }, idle);
    });
  });

  it('synchronous early unsubscribe: a synchronous infinite source stops at take(3)', () => {
    const { source: infinite, emitted } = endlessSyncSource();
    const values: number[] = [];
    const subscription = infinite.pipe(watch(1_000_000), take(3)).subscribe((v) => values.push(v));
    expect(values).toEqual([0, 1, 2]);
    expect(emitted()).toBe(3);
    expect(subscription.closed).toBe(true);
  });
});
