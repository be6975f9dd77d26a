/**
 * Step 10's bridge: whatever `call` returned (a value, a Promise, an AsyncIterable or an
 * Observable) as one cold Observable of raw items, cancellable by unsubscribing.
 */
import { isObservable, Observable, of } from 'rxjs';
import { isPromiseLike } from './maybeAsync.js';

/**
 * Items are passed on raw; the pipeline tells progress, outcomes and plain values apart.
 * - Promise: one item; a settlement after unsubscribe is dropped (a tool that ignores its
 *   signal is cut off all the same).
 * - AsyncIterable: pulled one item at a time; unsubscribe calls `return()` on the iterator, so
 *   a generator's `finally` runs at once instead of after its next item (STYLE §5.1). The
 *   generator's own return value, if not `undefined`, counts as its last item.
 * - Observable: as is; unsubscribing it is its cancellation.
 */
export function callToObservable(returned: unknown): Observable<unknown> {
  if (isObservable(returned)) return returned;
  if (isAsyncIterable(returned)) return fromAsyncIterable(returned);
  if (isPromiseLike(returned)) return fromPromiseLike(returned);
  return of(returned);
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

function fromPromiseLike(promise: PromiseLike<unknown>): Observable<unknown> {
  return new Observable((subscriber) => {
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

function fromAsyncIterable(iterable: AsyncIterable<unknown>): Observable<unknown> {
  return new Observable((subscriber) => {
    const iterator = iterable[Symbol.asyncIterator]();
    let finished = false;
    const pull = (): void => {
      iterator.next().then(
        (step) => {
          if (subscriber.closed) return;
          if (step.done) {
            finished = true;
            if (step.value !== undefined) subscriber.next(step.value);
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
