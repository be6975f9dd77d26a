/**
 * `deliverEach(select, sink)`: each value's `select(value)` items handed to `sink`, in order, in
 * the value's frame. The returned stream emits nothing: it ends (completes or errors) as the
 * source does, so it still says when the work is over and carries its failures. Private to the
 * package.
 *
 * Why: on the loop's path the values are stream events (one per few tokens) and the sink is the
 * loop's output. Emitting the items here would send each one through every operator between
 * this stage and the output (the iteration's `concat`, `catchError`s, `takeWhile`, `expand`'s
 * inner subscriber, ...); handing them to the sink costs one call. The items are not reordered:
 * whatever the chain emits reaches the same output synchronously, in the frames it happens in.
 *
 * ```
 * source:          -a---b-c-|       a → [1, 2], b → [], c → [3]
 * deliverEach(select, sink)
 * sink receives:   -(12)--3-
 * result:          ---------|
 * ```
 *
 * One subscriber hop per value (`subscribeLinked`): an unsubscribe from inside the sink (the
 * consumer took what it wanted) stops a synchronous source at once, and the rest of the items
 * selected from that value are dropped. A throwing `select` or `sink` errors the stream.
 */
import { Observable, type OperatorFunction } from 'rxjs';
import { subscribeLinked } from './subscribeLinked.js';

export function deliverEach<T, R>(select: (value: T) => readonly R[], sink: (item: R) => void): OperatorFunction<T, never> {
  return (source$) =>
    new Observable<never>((subscriber) => {
      subscribeLinked(source$, subscriber, {
        next(value) {
          try {
            const items = select(value);
            for (let i = 0; i < items.length && !subscriber.closed; i++) sink(items[i] as R);
          } catch (error) {
            subscriber.error(error);
          }
        },
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}
