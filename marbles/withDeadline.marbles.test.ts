import { describe, expect, it } from 'vitest';
import { asyncScheduler, defer, EMPTY, map, NEVER, take } from 'rxjs';
import { withDeadline } from '../operators/withDeadline.js';
import { createTestScheduler } from './helpers/testScheduler.js';
import { endlessSyncSource } from '../src/testing/marbles/endlessSyncSource.js';

const late = new Error('deadline');
const deadline = <T>(ms: number, makeError: () => unknown = () => late) => withDeadline<T>({ ms, error: makeError, scheduler: asyncScheduler });

describe('withDeadline', () => {
  it('fails a source that keeps emitting past the deadline (the timer never restarts)', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-p-p-p-p-p-p-p-p-p-p-p-p');
      expectObservable(source.pipe(deadline(5))).toBe('-p-p-#', undefined, late);
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });

  it('never: fails at the deadline', () => {
    createTestScheduler().run(({ expectObservable }) => {
      expectObservable(NEVER.pipe(deadline(3))).toBe('---#', undefined, late);
    });
  });

  it('passes empty, one and many through when they end in time', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      expectObservable(EMPTY.pipe(deadline(5))).toBe('|');
      const one = cold('-a|');
      expectObservable(one.pipe(deadline(5))).toBe('-a|');
      expectSubscriptions(one.subscriptions).toBe('^-!');
      const many = cold('abc-|');
      expectObservable(many.pipe(deadline(5))).toBe('abc-|');
      expectSubscriptions(many.subscriptions).toBe('^---!');
    });
  });

  it('passes the source error through (no later deadline error)', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-#');
      expectObservable(source.pipe(deadline(5))).toBe('-a-#');
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('never-ending source: an early unsubscribe cancels the source and the timer', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-');
      expectObservable(source.pipe(deadline(5)), '^--!').toBe('-a-');
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('a throwing error factory still errors the consumer, with what it threw', () => {
    createTestScheduler().run(({ expectObservable }) => {
      const boom = new Error('factory failed');
      const throwing = () => {
        throw boom;
      };
      expectObservable(NEVER.pipe(deadline(3, throwing))).toBe('---#', undefined, boom);
    });
  });

  it('is cold: each subscription has its own deadline', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      let n = 0;
      const source = defer(() => {
        const id = ++n;
        return cold('-a-b-c-d-e-f').pipe(map((v) => `${v}${id}`));
      });
      const deadlined = source.pipe(deadline(4));
      expectObservable(deadlined).toBe('-a-b#', { a: 'a1', b: 'b1' }, late);
      expectObservable(deadlined, '--^').toBe('---a-b#', { a: 'a2', b: 'b2' }, late);
    });
  });

  it('synchronous early unsubscribe: a synchronous infinite source stops at take(3)', () => {
    const { source: infinite, emitted } = endlessSyncSource();
    const values: number[] = [];
    const subscription = infinite.pipe(deadline(1_000_000), take(3)).subscribe((v) => values.push(v));
    expect(values).toEqual([0, 1, 2]);
    expect(emitted()).toBe(3);
    expect(subscription.closed).toBe(true);
  });
});
