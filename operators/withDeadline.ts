/**
 * `withDeadline({ ms, error, scheduler })`: the source, failed with `error()` if it has not ended
 * `ms` after subscribe.
 */
import { asyncScheduler, Observable, timer, type MonoTypeOperatorFunction, type SchedulerLike } from 'rxjs';
import { errorFrom } from './internal/errorFrom.js';

/** Options of {@link withDeadline}. */
export interface WithDeadlineOptions {
  /** Milliseconds from subscribe to the deadline. */
  readonly ms: number;
  /** Builds the error the stream fails with at the deadline (a throw is that error too). */
  readonly error: () => unknown;
  /** Where the deadline timer runs. Default `asyncScheduler` (virtual inside `TestScheduler.run`). */
  readonly scheduler?: SchedulerLike | undefined;
}

/**
 * Fails the source with `error()` if it has not ended `ms` after subscribe.
 *
 * <span class="informal">A whole-request deadline: unlike `timeout({ each })` the timer never
 * restarts, so a source that keeps emitting (a stream of pings) still ends.</span>
 *
 * ```
 * source:   -p-p-p-p-p-p-p-p-...
 * withDeadline({ ms: 5, error })
 * result:   -p-p-#                    (# = error())
 * ```
 *
 * The timer is owned by the subscription: it is cancelled when the source ends or the consumer
 * unsubscribes (unsubscribing also unsubscribes the source).
 *
 * ## Example
 * ```ts
 * import { interval } from 'rxjs';
 * import { withDeadline } from 'rxagent/operators';
 *
 * interval(100).pipe(withDeadline({ ms: 1_000, error: () => new Error('too slow') })).subscribe({ error: console.error });
 * ```
 *
 * @see {@link decodeSSE}, whose responses the client bounds with it.
 * @param options `ms`, `error` and the timer's `scheduler`.
 * @returns The source with a deadline.
 */
export function withDeadline<T>({ ms, error, scheduler = asyncScheduler }: WithDeadlineOptions): MonoTypeOperatorFunction<T> {
  return (source$) =>
    new Observable<T>((subscriber) => {
      const subscription = timer(ms, scheduler).subscribe(() => subscriber.error(errorFrom(error)));
      // The subscriber itself goes to the source, so a synchronous source sees `closed` at once.
      subscription.add(source$.subscribe(subscriber));
      return subscription;
    });
}
