/**
 * Runs attempts of one request until one succeeds or the retry policy gives up, announcing each
 * retry before its wait.
 * <span class="informal">Like `retry({ delay })`, but the consumer is told, and told whether to discard.</span>
 *
 * ```
 * attempt 1:  -s-d-#
 * attempt 2:                -s-d-x|
 * result:     -s-d-R 499ms  -s-d-x|     (R = stream_retry, delayMs 500, then the wait)
 * ```
 *
 * The announcement is `api_retry` when nothing of the failed attempt reached the consumer, and
 * `stream_retry` when its `message_start` did (discard everything since the last message_start).
 * Each attempt is subscribed only after the previous one ended and its wait passed; unsubscribing
 * during a wait cancels it and no further attempt starts. When retries run out, the last error is
 * rethrown unchanged (after `mapError`).
 *
 * @see {@link decideRetry} the pure policy.
 */
import { asyncScheduler, Observable, type SchedulerLike } from 'rxjs';
import { subscribeLinked } from '../../operators/internal/subscribeLinked.js';
import { ApiError } from '../errors.js';
import { decideRetry, retryErrorType, type BackoffOptions } from './retryPolicy.js';
import type { TransportOutput } from './types.js';

/** Options of {@link withAnnouncedRetries}: the retry budget, the backoff, and where the waits run. */
export interface AnnouncedRetryOptions {
  readonly maxRetries: number;
  readonly backoff?: BackoffOptions;
  /** Where the waits run (default: RxJS's async scheduler, virtualised in marble tests). */
  readonly scheduler?: SchedulerLike;
  /** Applied to every failure before it is judged, announced or rethrown (e.g. to redact it). */
  readonly mapError?: (error: unknown) => unknown;
}

/**
 * Runs `attempt` until one succeeds or the policy gives up, announcing each retry (see the file head
 * for the marble diagram).
 */
export function withAnnouncedRetries(
  attempt: () => Observable<TransportOutput>,
  options: AnnouncedRetryOptions,
): Observable<TransportOutput> {
  const { maxRetries, backoff = {}, scheduler = asyncScheduler, mapError = (e: unknown) => e } = options;

  // One subscriber hop per event (not a `tap` and a `catchError`): this sits on the streaming path.
  return new Observable<TransportOutput>((subscriber) => {
    const run = (retry: number): void => {
      let emittedContent = false; // per attempt: did its message_start reach the consumer?
      const failed = (raw: unknown): void => {
        const error = mapError(raw);
        const decision = decideRetry(error, retry + 1, maxRetries, backoff);
        if (!decision.retry) {
          subscriber.error(error);
          return;
        }
        // Announce first, then wait, then the next attempt: in that order, never overlapping.
        subscriber.next({
          type: emittedContent ? 'stream_retry' : 'api_retry',
          attempt: retry + 1,
          maxRetries,
          delayMs: decision.delayMs,
          status: error instanceof ApiError ? error.status : undefined,
          errorType: retryErrorType(error),
          message: error instanceof Error ? error.message : String(error),
        });
        if (!subscriber.closed) subscriber.add(scheduler.schedule(() => run(retry + 1), decision.delayMs));
      };
      let source$: Observable<TransportOutput>;
      try {
        source$ = attempt();
      } catch (thrown) {
        failed(thrown); // as `defer` would: a factory that throws is a failed attempt
        return;
      }
      subscribeLinked(source$, subscriber, {
        next: (output) => {
          if (output.type === 'message_start') emittedContent = true;
          subscriber.next(output);
        },
        error: failed,
        complete: () => subscriber.complete(),
      });
    };
    run(0);
  });
}
