/**
 * Why a job's run ended without a result of its own. Both make the worker fail the job, which
 * pg-boss then retries (up to the queue's retry limit) on whichever worker takes it next.
 */
import { RxAgentError } from '../../errors.js';

/** The worker was told to hand its runs back (a second SIGTERM): the run stopped, the transcript is kept. */
export class JobHandedBackError extends RxAgentError {
  override readonly name = 'JobHandedBackError';
  readonly kind = 'aborted' as const;
  readonly retryable = true;
  constructor(readonly jobId: string) {
    super(`job ${jobId} was handed back by its worker (stopping); another worker resumes it`);
  }
}

/**
 * The transcript ends with the model's answer but no result was stored: the worker died between
 * the run's last record and storing its result. Asking the model again would answer twice.
 */
export class JobResultLostError extends RxAgentError {
  override readonly name = 'JobResultLostError';
  readonly kind = 'session' as const;
  readonly retryable = false;
  constructor(readonly jobId: string, readonly sessionId: string) {
    super(`job ${jobId}: session ${sessionId} ends with the model's answer but the job's result was not stored (its worker died at the very end); not asking the model again`);
  }
}
