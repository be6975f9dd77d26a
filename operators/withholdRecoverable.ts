/**
 * `withholdRecoverable()`: holds back an error that a recovery may still fix, runs the
 * recovery, and releases the ORIGINAL error only when the recovery is unavailable or fails.
 */
import { catchError, defer, throwError } from 'rxjs';
import type { Observable, OperatorFunction } from 'rxjs';

/** Options of {@link withholdRecoverable}: which errors to hold and how to recover from them. */
export interface WithholdRecoverableOptions<R> {
  /** Which errors to hold. Anything else passes through at once. */
  isRecoverable(error: unknown): boolean;
  /**
   * The recovery for a held error, subscribed at once. `undefined` means none is available
   * (e.g. already attempted this turn): the held error is released. A throwing callback
   * releases the held error too (the recovery's own failure is not the user's problem).
   */
  recover(error: unknown): Observable<R> | undefined;
}

/**
 * Holds recoverable errors back from the output; surfaces them only when recovery failed.
 *
 * <span class="informal">Consumers drop a session on any error event, so an error the loop can
 * still fix (prompt too long: compact and retry) must not be seen unless the fix fails.</span>
 *
 * ```
 * source:    -a-b-#              # is recoverable
 * recover(#):      --r-|
 * output:    -a-b---r-|          the error never shows
 *
 * source:    -a-b-#
 * recover(#):      --#'          the recovery fails
 * output:    -a-b---#            the ORIGINAL error is released
 * ```
 *
 * Values of the source pass through unchanged and in their frame. A non-recoverable error
 * passes through in its frame. Unsubscribing during the recovery unsubscribes the recovery.
 *
 * ## Example
 * ```ts
 * import { withholdRecoverable } from 'rxagent/operators';
 *
 * request$.pipe(withholdRecoverable({
 *   isRecoverable: (e) => e instanceof ApiError && e.isPromptTooLong,
 *   recover: () => (alreadyCompacted ? undefined : compactAndRetry$),
 * }));
 * ```
 *
 * @param options What to hold and how to recover.
 * @returns An operator that emits the source's values, then the recovery's values.
 */
export function withholdRecoverable<T, R = T>(options: WithholdRecoverableOptions<R>): OperatorFunction<T, T | R> {
  return (source$) =>
    source$.pipe(
      catchError((error: unknown) => {
        let recoverable: boolean;
        try {
          recoverable = options.isRecoverable(error);
        } catch {
          recoverable = false;
        }
        if (!recoverable) return throwError(() => error);
        return defer(() => options.recover(error) ?? throwError(() => error)).pipe(
          // Whatever went wrong in the recovery, the consumer sees the error it would have seen.
          catchError(() => throwError(() => error)),
        );
      }),
    );
}
