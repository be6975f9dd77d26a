import { describe, expect, it } from 'vitest';
import { Observable, interval, map, of, take, throwError, concat } from 'rxjs';
import { toAsyncIterable } from '../../src/util/toAsyncIterable.js';

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const v of iterable) out.push(v);
  return out;
}

describe('toAsyncIterable', () => {
  it('yields nothing for an empty source', async () => {
    expect(await collect(toAsyncIterable(of()))).toEqual([]);
  });

  it('yields every value of a synchronous source in order', async () => {
    expect(await collect(toAsyncIterable(of(1, 2, 3)))).toEqual([1, 2, 3]);
  });

  it('yields values of an asynchronous source as they arrive', async () => {
    expect(await collect(toAsyncIterable(interval(1).pipe(take(4))))).toEqual([0, 1, 2, 3]);
  });

  it('throws the source error after the values before it', async () => {
    const seen: number[] = [];
    const failing = concat(of(1, 2), throwError(() => new Error('boom')));
    await expect(
      (async () => {
        for await (const v of toAsyncIterable(failing)) seen.push(v);
      })(),
    ).rejects.toThrow('boom');
    expect(seen).toEqual([1, 2]);
  });

  it('unsubscribes when the loop breaks early (the run is aborted)', async () => {
    let torn = false;
    const endless = new Observable<number>((subscriber) => {
      let i = 0;
      const id = setInterval(() => subscriber.next(i++), 1);
      return () => {
        torn = true;
        clearInterval(id);
      };
    });
    const seen: number[] = [];
    for await (const v of toAsyncIterable(endless)) {
      seen.push(v);
      if (seen.length === 3) break;
    }
    expect(seen).toEqual([0, 1, 2]);
    expect(torn).toBe(true);
  });

  it('is cold: nothing is subscribed before iteration, and each iteration starts fresh', async () => {
    let subscriptions = 0;
    const source = new Observable<number>((s) => {
      subscriptions++;
      s.next(subscriptions);
      s.complete();
    });
    const iterable = toAsyncIterable(source.pipe(map((v) => v * 10)));
    expect(subscriptions).toBe(0);
    expect(await collect(iterable)).toEqual([10]);
    expect(await collect(iterable)).toEqual([20]);
  });
});
