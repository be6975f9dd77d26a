/**
 * `emitEach(select)`: each value's `select(value)` items, emitted in order, without an inner
 * Observable per value. Private to the package.
 *
 * Why not `mergeMap(v => select(v))`: that subscribes one inner Observable per value, which on the
 * loop's path is one per stream event, the largest cost of streaming a response through the
 * loop. Here the items go straight into a Subject merged ahead of the source; the source's
 * subscriber is chained to the consumer's, so a synchronous source still sees an early
 * unsubscribe (items selected after it are dropped by the Subject, which has no observer left).
 *
 * ```
 * source:          -a---b-c-|       a → [1, 2], b → [], c → [3]
 * emitEach(select)
 * result:          -(12)--3-|
 * ```
 */
import { defer, ignoreElements, merge, Subject, tap, type OperatorFunction } from 'rxjs';

export function emitEach<T, R>(select: (value: T) => readonly R[]): OperatorFunction<T, R> {
  return (source$) =>
    defer(() => {
      const items$ = new Subject<R>();
      return merge(
        items$,
        source$.pipe(
          tap({
            next: (value) => {
              for (const item of select(value)) items$.next(item);
            },
            error: (error: unknown) => items$.error(error),
            complete: () => items$.complete(),
          }),
          ignoreElements(),
        ),
      );
    });
}
