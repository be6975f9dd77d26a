/**
 * `idleTimeout({ ms, counts, error, scheduler })`: the source, failed with `error()` once `ms`
 * pass without a value that `counts` (from subscribe, then from each counted value).
 */
import { asyncScheduler, Observable, tap, type MonoTypeOperatorFunction, type SchedulerLike } from 'rxjs';
import { errorFrom } from './internal/errorFrom.js';
import { IdleWatch } from './internal/idleWatch.js';

/** Options of {@link idleTimeout}. */
export interface IdleTimeoutOptions<T> {
  /** Milliseconds allowed without a counted value. */
  readonly ms: number;
  /** Whether a value shows life and restarts the timer (default: every value does). A throw is an error of the stream. */
  readonly counts?: ((value: T) => boolean) | undefined;
  /** Builds the error the stream fails with when idle (a throw is that error too). */
  readonly error: () => unknown;
  /** Where the timer runs. Default `asyncScheduler` (virtual inside `TestScheduler.run`). */
  readonly scheduler?: SchedulerLike | undefined;
}

/**
 * Fails the source with `error()` when it has been idle for `ms`: no value that `counts`.
 *
 * <span class="informal">`timeout({ each })`, except that only some values restart the timer: an
 * SSE stream of keep-alive pings passes every ping on but is still idle, since no content came.</span>
 *
 * ```
 * source:   -c-p-p-p-p-p-p-...        (c counts, p does not)
 * idleTimeout({ ms: 3, counts: (v) => v === 'c', error })
 * result:   -c-p#                     (# = error(), 3 frames after the last c)
 * ```
 *
 * Every value is passed on, counted or not. The timer is owned by the subscription: cancelled
 * when the source ends or the consumer unsubscribes (unsubscribing also unsubscribes the source).
 *
 * ## Example
 * ```ts
 * import { idleTimeout } from 'rxagent/operators';
 *
 * events$.pipe(idleTimeout({ ms: 120_000, counts: (e) => e.type !== 'ping', error: () => new Error('idle') }));
 * ```
 *
 * @see {@link withDeadline}, the total deadline that nothing restarts.
 * @param options `ms`, `counts`, `error` and the timer's `scheduler`.
 * @returns The source with an idle timeout.
 */
export function idleTimeout<T>({ ms, counts, error, scheduler = asyncScheduler }: IdleTimeoutOptions<T>): MonoTypeOperatorFunction<T> {
  return (source$) =>
    new Observable<T>((subscriber) => {
      const watch = new IdleWatch(ms, scheduler, () => subscriber.error(errorFrom(error)));
      // Through `tap` into the subscriber itself, so a synchronous source sees `closed` at once.
      const subscription = source$.pipe(tap((value) => (counts === undefined || counts(value) ? watch.touch() : undefined))).subscribe(subscriber);
      return () => {
        watch.stop();
        subscription.unsubscribe();
      };
    });
}
