/**
 * `withDeadline(ms, makeError, scheduler)`: the source, failed with `makeError()` if it has not
 * ended `ms` after subscribe. Unlike `timeout({ each })` the timer never restarts, so a source
 * that keeps emitting (a stream of pings) still ends.
 *
 * ```
 * source:   -p-p-p-p-p-p-p-p-...
 * withDeadline(5)
 * result:   -p-p-#                    (# = makeError())
 * ```
 *
 * The timer is a `timer(ms, scheduler)` owned by the subscription: it is cancelled when the
 * source ends or the consumer unsubscribes (unsubscribing also unsubscribes the source).
 */
import { Observable, timer, type MonoTypeOperatorFunction, type SchedulerLike } from 'rxjs';

export function withDeadline<T>(ms: number, makeError: () => unknown, scheduler: SchedulerLike): MonoTypeOperatorFunction<T> {
  return (source$) =>
    new Observable<T>((subscriber) => {
      const subscription = timer(ms, scheduler).subscribe(() => {
        let error: unknown;
        try {
          error = makeError();
        } catch (thrown) {
          error = thrown; // still an error for the consumer, never an unhandled throw in a timer
        }
        subscriber.error(error);
      });
      // The subscriber itself goes to the source, so a synchronous source sees `closed` at once.
      subscription.add(source$.subscribe(subscriber));
      return subscription;
    });
}
