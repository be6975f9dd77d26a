import { describe, expect, it } from 'vitest';
import { firstValueFrom, lastValueFrom, Observable, of, take, toArray } from 'rxjs';
import { fromAbortSignal } from '../../operators/internal/fromAbortSignal.js';
import { fromMaybeAsync } from '../../operators/internal/fromMaybeAsync.js';
import { subscribeLinked } from '../../operators/internal/subscribeLinked.js';

describe('fromAbortSignal', () => {
  it('emits the reason and completes when the signal aborts', async () => {
    const controller = new AbortController();
    const seen = lastValueFrom(fromAbortSignal(controller.signal).pipe(toArray()));
    controller.abort('stop');
    expect(await seen).toEqual(['stop']);
  });

  it('emits synchronously for a signal that is already aborted (its event never fires again)', () => {
    const seen: unknown[] = [];
    let completed = false;
    fromAbortSignal(AbortSignal.abort('early')).subscribe({ next: (r) => seen.push(r), complete: () => (completed = true) });
    expect(seen).toEqual(['early']);
    expect(completed).toBe(true);
  });

  it('removes its listener on unsubscribe (a shared long-lived signal collects none)', () => {
    const controller = new AbortController();
    let listeners = 0;
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => (listeners++, add(...args))) as typeof add;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => (listeners--, remove(...args))) as typeof remove;
    const subscriptions = [1, 2, 3].map(() => fromAbortSignal(signal).subscribe());
    expect(listeners).toBe(3);
    subscriptions.forEach((s) => s.unsubscribe());
    expect(listeners).toBe(0);
  });
});

describe('fromMaybeAsync', () => {
  it('a plain value stays synchronous; an array is one value, not a stream', () => {
    const seen: unknown[] = [];
    fromMaybeAsync(42).subscribe((v) => seen.push(v));
    fromMaybeAsync([1, 2]).subscribe((v) => seen.push(v));
    expect(seen).toEqual([42, [1, 2]]);
  });

  it('an Observable is the answer itself (its timing is the answer timing)', () => {
    const answer = of('a', 'b');
    expect(fromMaybeAsync(answer)).toBe(answer);
  });

  it('a Promise emits once; a rejection is the error', async () => {
    await expect(firstValueFrom(fromMaybeAsync(Promise.resolve('p')))).resolves.toBe('p');
    await expect(firstValueFrom(fromMaybeAsync(Promise.reject(new Error('no'))))).rejects.toThrow('no');
  });

  it('a settlement after unsubscribe is dropped', async () => {
    let resolve!: (v: string) => void;
    const promise = new Promise<string>((r) => (resolve = r));
    const seen: string[] = [];
    fromMaybeAsync(promise).subscribe((v) => seen.push(v)).unsubscribe();
    resolve('late');
    await promise;
    expect(seen).toEqual([]);
  });

  it("an async generator: its items, then its return value; unsubscribe runs its finally at once", async () => {
    async function* steps(): AsyncGenerator<string, string> {
      yield 'progress';
      return 'output';
    }
    expect(await lastValueFrom(fromMaybeAsync(steps()).pipe(toArray()))).toEqual(['progress', 'output']);

    let finalized = false;
    let releaseSecond!: () => void;
    const held = new Promise<void>((r) => (releaseSecond = r));
    async function* slow(): AsyncGenerator<string> {
      try {
        yield 'first';
        await held;
        yield 'second';
      } finally {
        finalized = true;
      }
    }
    const first = await firstValueFrom(fromMaybeAsync(slow()).pipe(take(1)));
    expect(first).toBe('first');
    // take(1) unsubscribed after the first item: return() ran the finally without waiting for 'second'.
    await new Promise<void>((r) => setImmediate(r));
    expect(finalized).toBe(true);
    releaseSecond();
  });
});

describe('subscribeLinked', () => {
  /** An operator that passes values on through subscribeLinked (the shape decodeSSE and assembleBlocks use). */
  const passOn = <T>(source$: Observable<T>) =>
    new Observable<T>((output) => {
      subscribeLinked(source$, output, { next: (v) => output.next(v), error: (e: unknown) => output.error(e), complete: () => output.complete() });
    });

  it('stops a synchronous source as soon as the output is unsubscribed in the middle of it', () => {
    let produced = 0;
    const synchronous = new Observable<number>((subscriber) => {
      for (let i = 0; !subscriber.closed && i < 100; i++) {
        produced++;
        subscriber.next(i);
      }
      subscriber.complete();
    });
    const seen: number[] = [];
    passOn(synchronous).pipe(take(3)).subscribe((v) => seen.push(v));
    expect(seen).toEqual([0, 1, 2]);
    expect(produced).toBe(3);
  });

  it('passes values, errors and completion through, and tears the source down with the output', async () => {
    expect(await lastValueFrom(passOn(of(1, 2, 3)).pipe(toArray()))).toEqual([1, 2, 3]);
    await expect(lastValueFrom(passOn(new Observable<number>((s) => s.error(new Error('boom')))))).rejects.toThrow('boom');
    let tornDown = false;
    const endless = new Observable<number>(() => () => (tornDown = true));
    passOn(endless).subscribe().unsubscribe();
    expect(tornDown).toBe(true);
  });
});
