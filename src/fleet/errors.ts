/**
 * Typed errors of the fleet parts (PostgreSQL store, job queue). A lease held elsewhere is a
 * `SessionLockedError` (callers already switch on it for the file lock); the database itself
 * failing is a `SessionStoreUnavailableError`; a job that cannot be found is `JobNotFoundError`.
 */
import { RxAgentError } from '../errors.js';
import { SessionLockedError } from '../session/errors.js';

/** Another machine or process holds the session's lease (PostgreSQL store). */
export class SessionLeaseHeldError extends SessionLockedError {
  constructor(
    sessionId: string,
    where: string,
    /** Who holds it, as the holder wrote itself down (`host pid N`). */
    readonly leaseHolder: string,
    readonly leaseExpiresAt: Date,
  ) {
    super(sessionId, where, undefined);
    // The file lock's message names a lock file; a lease names its holder and when it runs out.
    this.message = `session ${sessionId} is already open for writing by ${leaseHolder} (lease in ${where} valid until ${leaseExpiresAt.toISOString()})`;
  }
}

/** The session database could not be reached or set up (at start: the run does not begin). */
export class SessionStoreUnavailableError extends RxAgentError {
  override readonly name = 'SessionStoreUnavailableError';
  readonly kind = 'configuration' as const;
  readonly retryable = true;
  constructor(readonly where: string, cause: unknown) {
    super(`the session store ${where} is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
  }
}

/** `result` of a job id the queue does not know. */
export class JobNotFoundError extends RxAgentError {
  override readonly name = 'JobNotFoundError';
  readonly kind = 'configuration' as const;
  readonly retryable = false;
  constructor(readonly jobId: string, where: string) {
    super(`job ${jobId} not found in the queue ${where}`);
  }
}

/** A URL without its password, for messages and `SessionInfo.location`. */
export function describeUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return 'postgres (unparsable URL)';
  }
}
