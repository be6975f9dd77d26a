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
import { asyncScheduler, type Observable, type SchedulerLike, Subscriber } from 'rxjs';
import { BatchedOutputs, type DeliverBatch } from '../../operators/internal/batchedOutputs.js';
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
): BatchedOutputs {
  const { maxRetries, backoff = {}, scheduler = asyncScheduler, mapError = (e: unknown) => e } = options;

  // Batched (see batchedOutputs.ts): an attempt's batches go straight to the consumer's delivery,
  // so the retries cost nothing per event on the streaming path.
  return new BatchedOutputs((subscriber, deliver, context) => {
    const run = (retry: number): void => {
      const hop: AttemptHop<typeof context, unknown> = { emittedContent: false, deliver: deliver as DeliverBatch<typeof context, unknown>, context, output: subscriber };
      const failed = (raw: unknown): void => {
        const error = mapError(raw);
        const decision = decideRetry(error, retry + 1, maxRetries, backoff);
        if (!decision.retry) {
          subscriber.error(error);
          return;
        }
        // Announce first, then wait, then the next attempt: in that order, never overlapping.
        const announcement: TransportOutput = {
          type: hop.emittedContent ? 'stream_retry' : 'api_retry',
          attempt: retry + 1,
          maxRetries,
          delayMs: decision.delayMs,
          status: error instanceof ApiError ? error.status : undefined,
          errorType: retryErrorType(error),
          message: error instanceof Error ? error.message : String(error),
        };
        deliver(context, [announcement], subscriber);
        if (!subscriber.closed) subscriber.add(scheduler.schedule(() => run(retry + 1), decision.delayMs));
      };
      let source$: Observable<TransportOutput>;
      try {
        source$ = attempt();
      } catch (thrown) {
        failed(thrown); // as `defer` would: a factory that throws is a failed attempt
        return;
      }
      // The attempt's own subscriber: its end is judged here, and the output outlives it.
      const input = new Subscriber<TransportOutput>({ next: (output) => forwardBatch(hop, [output], input), error: failed, complete: () => subscriber.complete() });
      subscriber.add(input);
      if (source$ instanceof BatchedOutputs) source$.subscribeBatches(input, forwardBatch, hop);
      else source$.subscribe(input);
    };
    run(0);
  });
}

/** One attempt's link to the consumer. */
interface AttemptHop<C, T> {
  /** Did this attempt's message_start reach the consumer? Then a retry says `stream_retry`. */
  emittedContent: boolean;
  readonly deliver: DeliverBatch<C, T>;
  readonly context: C;
  readonly output: Subscriber<T>;
}

function forwardBatch<C, T>(hop: AttemptHop<C, T>, outputs: readonly TransportOutput[], _input: Subscriber<unknown>): void {
  if (!hop.emittedContent) for (let i = 0; i < outputs.length; i++) if ((outputs[i] as TransportOutput).type === 'message_start') hop.emittedContent = true;
  hop.deliver(hop.context, outputs, hop.output);
}
