/**
 * `fromMaybeAsync(answer)`: whatever a seam answered (a value, a Promise, an Observable, an
 * async iterable) as one cold Observable. Private to the package: every seam of the loop (hooks,
 * `canUseTool`, tools, the governor) goes through it, so Rx is the only async model behind it.
 */
import { from, isObservable, Observable, of, type InteropObservable } from 'rxjs';

/**
 * What a seam may answer: the value itself, a Promise of it, or a stream of it (`Observable`,
 * interop observable, async iterable). Arrays and other sync iterables count as plain values:
 * a tool's output or a hook's answer may well be an array.
 */
export type MaybeAsync<T> = T | PromiseLike<T> | Observable<T> | InteropObservable<T> | AsyncIterable<T>;

/**
 * The answer as a cold Observable.
 *
 * - A plain value stays synchronous (`of`): a synchronous hook or tool runs inside RxJS virtual
 *   time in marble specs, where a Promise would escape to the microtask queue.
 * - An Observable is returned as is: its timing is the answer's timing (a `cold()` in a spec).
 * - A PromiseLike emits once; a settlement after unsubscribe is dropped (a tool that ignores its
 *   signal is cut off all the same).
 * - An async iterable is pulled one item at a time; unsubscribing calls `return()` at once, so
 *   a generator's `finally` runs now instead of after its next item (RxJS's `from` waits for it).
 *   A generator's own return value, if not `undefined`, is its last item (a tool may `return` its
 *   output after `yield`ing progress).
 */
export function fromMaybeAsync<T>(answer: MaybeAsync<T>): Observable<T> {
  if (isObservable(answer)) return answer as Observable<T>;
  if (isInteropObservable<T>(answer)) return from(answer);
  if (isAsyncIterable<T>(answer)) return fromAsyncIterable(answer);
  if (isPromiseLike<T>(answer)) return fromPromiseLike(answer);
  return of(answer);
}

/**
 * True when `fromMaybeAsync(answer)` would be `of(answer)`: a plain value, neither a Promise nor
 * a stream. A hot path may then take the value directly instead of subscribing to it.
 */
export function isPlainAnswer(answer: unknown): boolean {
  return !isObservable(answer) && !isInteropObservable(answer) && !isAsyncIterable(answer) && !isPromiseLike(answer);
}

export function isPromiseLike<T = unknown>(value: unknown): value is PromiseLike<T> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

function isInteropObservable<T>(value: unknown): value is InteropObservable<T> {
  const key = (typeof Symbol === 'function' && Symbol.observable) || '@@observable';
  return value !== null && typeof value === 'object' && typeof (value as Record<PropertyKey, unknown>)[key] === 'function';
}

function isAsyncIterable<T>(value: unknown): value is AsyncIterable<T> {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

function fromPromiseLike<T>(promise: PromiseLike<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    promise.then(
      (value) => {
        if (subscriber.closed) return;
        subscriber.next(value);
        subscriber.complete();
      },
      (error: unknown) => {
        if (!subscriber.closed) subscriber.error(error);
      },
    );
  });
}

function fromAsyncIterable<T>(iterable: AsyncIterable<T>): Observable<T> {
  return new Observable<T>((subscriber) => {
    const iterator = iterable[Symbol.asyncIterator]();
    let finished = false;
    const pull = (): void => {
      iterator.next().then(
        (step) => {
          if (subscriber.closed) return;
          if (step.done) {
            finished = true;
            if (step.value !== undefined) subscriber.next(step.value as T);
            subscriber.complete();
            return;
          }
          subscriber.next(step.value);
          if (!subscriber.closed) pull();
        },
        (error: unknown) => {
          finished = true;
          if (!subscriber.closed) subscriber.error(error);
        },
      );
    };
    pull();
    return () => {
      if (finished) return;
      finished = true;
      // Closing the iterator runs the generator's `finally` now; its own errors have no reader.
      Promise.resolve()
        .then(() => iterator.return?.())
        .catch(() => undefined);
    };
  });
}
