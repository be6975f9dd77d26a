/**
 * `subscribeLinked(source$, output, observer)`: the one-hop way for an operator built as
 * `new Observable(output => ...)` to listen to its source.
 *
 * The observer is wrapped in a plain `Subscriber` that joins `output`'s teardown *before* the
 * source runs, so an unsubscribe in the middle of a synchronous source (`take(3)` downstream, an
 * error emitted from inside `next`) closes it at once and the source stops producing, instead of
 * running to its end. `pipe(takeUntil(...))` does the same at the cost of one more subscriber
 * hop per value; on the streaming path that hop is paid per stream event.
 *
 * Why the (documented as internal) `Subscriber` constructor: given an object that is not a
 * Subscription it neither wraps the observer (no per-value try/catch of a SafeSubscriber; our
 * callbacks catch their own errors) nor links itself anywhere, and RxJS 7 has no public
 * alternative that hands the source a closable subscriber before it starts.
 */
import { Subscriber, type Observable, type Observer } from 'rxjs';

export function subscribeLinked<T>(source$: Observable<T>, output: Subscriber<unknown>, observer: Observer<T>): Subscriber<T> {
  const input = new Subscriber<T>(observer);
  output.add(input);
  source$.subscribe(input);
  return input;
}
