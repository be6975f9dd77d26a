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
import { catchError, concat, defer, ignoreElements, type Observable, of, type SchedulerLike, tap, throwError, timer } from 'rxjs';
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
  const { maxRetries, backoff = {}, scheduler, mapError = (e: unknown) => e } = options;

  const attemptFrom = (retry: number): Observable<TransportOutput> =>
    defer(() => {
      let emittedContent = false; // per attempt: did its message_start reach the consumer?
      return attempt().pipe(
        tap((output) => {
          if (output.type === 'message_start') emittedContent = true;
        }),
        catchError((raw: unknown) => {
          const error = mapError(raw);
          const decision = decideRetry(error, retry + 1, maxRetries, backoff);
          if (!decision.retry) return throwError(() => error);
          const announcement: TransportOutput = {
            type: emittedContent ? 'stream_retry' : 'api_retry',
            attempt: retry + 1,
            maxRetries,
            delayMs: decision.delayMs,
            status: error instanceof ApiError ? error.status : undefined,
            errorType: retryErrorType(error),
            message: error instanceof Error ? error.message : String(error),
          };
          // Announce first, then wait, then the next attempt: in that order, never overlapping.
          return concat(
            of(announcement),
            (scheduler ? timer(decision.delayMs, scheduler) : timer(decision.delayMs)).pipe(ignoreElements()),
            attemptFrom(retry + 1),
          );
        }),
      );
    });

  return attemptFrom(0);
}
