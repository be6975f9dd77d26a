/**
 * `for await` over an Observable. RxJS 7 Observables are not async-iterable, and the usual
 * workaround (collecting into a Promise) loses streaming. This bridge buffers what arrives
 * between two `next()` calls and, crucially, unsubscribes when the loop exits early (`break`,
 * `return`, a thrown error), so leaving the loop aborts the agent run like unsubscribing does.
 *
 * Warning: a consumer slower than the source makes the buffer grow; the loop's events are small
 * and bounded by the work, which is why no backpressure is applied.
 */
import type { Observable, Subscription } from 'rxjs';

/** `for await` over an Observable; leaving the loop early unsubscribes (see the file head). */
export function toAsyncIterable<T>(source$: Observable<T>): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator](): AsyncIterator<T> {
      const buffer: T[] = [];
      let done = false;
      let failure: { error: unknown } | undefined;
      let wake: (() => void) | undefined;
      let subscription: Subscription | undefined;
      const notify = () => {
        const w = wake;
        wake = undefined;
        w?.();
      };
      const start = () => {
        subscription = source$.subscribe({
          next: (value) => {
            buffer.push(value);
            notify();
          },
          error: (error: unknown) => {
            failure = { error };
            done = true;
            notify();
          },
          complete: () => {
            done = true;
            notify();
          },
        });
      };
      const stop = () => {
        done = true;
        buffer.length = 0;
        subscription?.unsubscribe();
      };
      return {
        async next(): Promise<IteratorResult<T>> {
          if (!subscription) start(); // cold: nothing starts before the first next()
          for (;;) {
            if (buffer.length > 0) return { value: buffer.shift() as T, done: false };
            if (failure) {
              const { error } = failure;
              failure = undefined;
              throw error;
            }
            if (done) return { value: undefined, done: true };
            await new Promise<void>((resolve) => (wake = resolve));
          }
        },
        async return(): Promise<IteratorResult<T>> {
          stop();
          return { value: undefined, done: true };
        },
        async throw(error?: unknown): Promise<IteratorResult<T>> {
          stop();
          throw error;
        },
      };
    },
  };
}
