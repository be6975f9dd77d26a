/**
 * The pluggable transcript store. The JSONL store (`createJsonlSessionStore`) is the default;
 * another store (a database, a remote service) implements the same four operations.
 */
import type { SessionRecord } from './records.js';
import type { SessionWarning } from './warnings.js';

/** How `SessionStore.open` treats an existing transcript, so a new session never appends to an old one by accident. */
export type OpenMode =
  /** A new session: fails with `SessionExistsError` if it already has a transcript. */
  | 'create'
  /** An existing session: fails with `SessionNotFoundError` if it has none. */
  | 'resume';

/** The single writer of one session (it holds the lock until `close`). */
export interface SessionWriter {
  readonly sessionId: string;
  /**
   * Appends complete records, in order, and resolves once they are durable. Rejects with
   * `SessionWriteError` (disk full, permission) — after which the writer is closed — or
   * `SessionClosedError`. Concurrent calls are applied one after the other.
   */
  append(records: readonly SessionRecord[]): Promise<void>;
  /** Waits for pending appends, closes the file and releases the lock. Idempotent. */
  close(): Promise<void>;
}

/** One session as `SessionStore.list` reports it. */
export interface SessionInfo {
  readonly sessionId: string;
  /** Last time the transcript changed. `list()` is sorted by it, newest first. */
  readonly modifiedAt: Date;
  readonly sizeBytes: number;
  /** Where the store keeps it (a file path for the JSONL store). */
  readonly location: string;
}

/** Everything read from one session's transcript, with what could not be read. */
export interface SessionTranscript {
  readonly sessionId: string;
  /** Records in file (= append) order; unreadable lines are left out and named in `warnings`. */
  readonly records: readonly SessionRecord[];
  readonly warnings: readonly SessionWarning[];
}

/** Where a workspace's sessions live: open a writer, list them, read one. */
export interface SessionStore {
  /** The absolute workspace path the store's sessions belong to. */
  readonly workspace: string;
  /**
   * Takes the session's writer lock (one writer per session, across processes) and returns its
   * writer. Rejects with `SessionLockedError` when another writer holds it.
   */
  open(sessionId: string, options: { readonly mode: OpenMode }): Promise<SessionWriter>;
  /** Sessions of the workspace, newest first. */
  list(): Promise<SessionInfo[]>;
  /** All records of a session (no lock needed: only complete lines are read). */
  read(sessionId: string): Promise<SessionTranscript>;
}
