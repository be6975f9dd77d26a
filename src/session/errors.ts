/**
 * Typed errors of the transcript store. All are `RxAgentError`s of kind `session`, discriminated
 * further by `type`, and none is retryable by simply trying again: a locked session stays locked
 * until its holder exits, and a failed write means the transcript can no longer be trusted.
 */
import { RxAgentError } from '../errors.js';

/** The `type` of each session error, to switch on without `instanceof`. */
export type SessionErrorType =
  | 'locked'
  | 'not_found'
  | 'already_exists'
  | 'write_failed'
  | 'closed'
  | 'invalid_session_id'
  | 'invalid_record'
  | 'not_a_file';

/** Base of the session errors: kind 'session', never retryable, with the session id concerned. */
export abstract class SessionError extends RxAgentError {
  readonly kind = 'session' as const;
  readonly retryable = false;
  abstract readonly type: SessionErrorType;
  constructor(
    readonly sessionId: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** What a lock file says about its holder. */
export interface LockHolder {
  readonly pid: number;
  /** When the holding process started (ms since epoch), to tell a reused pid apart. */
  readonly processStartedAt: number;
  /** When the lock was taken (ms since epoch). */
  readonly lockedAt: number;
}

/** Another writer (this process or another one) holds the session's lock. */
export class SessionLockedError extends SessionError {
  override readonly name = 'SessionLockedError';
  readonly type = 'locked' as const;
  constructor(
    sessionId: string,
    readonly lockPath: string,
    /** Undefined when the lock file could not be read (it is being written right now). */
    readonly holder: LockHolder | undefined,
  ) {
    super(
      sessionId,
      holder
        ? `session ${sessionId} is already open for writing by process ${holder.pid}${holder.pid === process.pid ? ' (this process)' : ''} since ${new Date(holder.lockedAt).toISOString()}; lock file: ${lockPath}`
        : `session ${sessionId} is already open for writing (lock file ${lockPath} is being created)`,
    );
  }
}

/** Resuming (or reading) a session that has no transcript; an empty id means "no session at all" (continue). */
export class SessionNotFoundError extends SessionError {
  override readonly name = 'SessionNotFoundError';
  readonly type = 'not_found' as const;
  constructor(sessionId: string, readonly where: string) {
    super(sessionId, sessionId === '' ? `no session found in ${where}` : `session ${sessionId} not found in ${where}`);
  }
}

/**
 * The transcript's path names something other than a regular file: a FIFO (reading it would wait
 * forever), a device, a directory, or a symlink (appending through it would write wherever it
 * points). Refused at once, before anything is read or written.
 */
export class SessionFileTypeError extends SessionError {
  override readonly name = 'SessionFileTypeError';
  readonly type = 'not_a_file' as const;
  constructor(
    sessionId: string,
    readonly path: string,
    readonly found: string,
  ) {
    super(sessionId, `the transcript of session ${sessionId} (${path}) is ${found}, not a regular file; refusing to read or write it`);
  }
}

/** Creating a session that already has a transcript: it is never overwritten or appended to by a create. */
export class SessionExistsError extends SessionError {
  override readonly name = 'SessionExistsError';
  readonly type = 'already_exists' as const;
  constructor(sessionId: string, readonly path: string) {
    super(sessionId, `session ${sessionId} already exists (${path}); resume it instead of creating it`);
  }
}

/**
 * Appending to the transcript failed (disk full, permission denied, ...). The writer is unusable
 * afterwards: the loop must end rather than go on without persistence.
 */
export class SessionWriteError extends SessionError {
  override readonly name = 'SessionWriteError';
  readonly type = 'write_failed' as const;
  constructor(
    sessionId: string,
    readonly path: string,
    /** The system error code (`ENOSPC`, `EACCES`, ...) when there is one. */
    readonly code: string | undefined,
    cause: unknown,
  ) {
    super(
      sessionId,
      `could not write the transcript of session ${sessionId} to ${path}${code ? ` (${code}${describeCode(code)})` : ''}: ${
        cause instanceof Error ? cause.message : String(cause)
      }`,
      { cause },
    );
  }
}

/** `append` after `close()` (or after a failed write, which closes the writer). */
export class SessionClosedError extends SessionError {
  override readonly name = 'SessionClosedError';
  readonly type = 'closed' as const;
  constructor(sessionId: string) {
    super(sessionId, `the writer of session ${sessionId} is closed`);
  }
}

/** Session ids become file names: only a safe alphabet is accepted. */
export class InvalidSessionIdError extends SessionError {
  override readonly name = 'InvalidSessionIdError';
  readonly type = 'invalid_session_id' as const;
  constructor(sessionId: string) {
    super(sessionId, `invalid session id ${JSON.stringify(sessionId)}: use 1-128 letters, digits, '-', '_' or '.' (not starting with '.')`);
  }
}

function describeCode(code: string): string {
  switch (code) {
    case 'ENOSPC':
      return ': the disk is full';
    case 'EDQUOT':
      return ': the disk quota is exceeded';
    case 'EACCES':
    case 'EPERM':
      return ': permission denied';
    case 'EROFS':
      return ': the file system is read-only';
    default:
      return '';
  }
}

/** `append` was given something that is not a valid record of this session; nothing was written. */
export class InvalidSessionRecordError extends SessionError {
  override readonly name = 'InvalidSessionRecordError';
  readonly type = 'invalid_record' as const;
  constructor(sessionId: string, readonly index: number, detail: string) {
    super(sessionId, `record ${index} of the append to session ${sessionId} is invalid (${detail}); nothing of this append was written`);
  }
}
