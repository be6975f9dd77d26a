/**
 * `rxagent/fleet`: running agents on more than one machine. Sessions in PostgreSQL (a drop-in
 * `SessionStore`, so `startSession` / `resume` / `continueLatest` / `fork` work on it unchanged).
 * A sub-path of its own: the root import never loads the database driver.
 */
export { createPgSessionStore, DEFAULT_LEASE_MS, type PgSessionStore, type PgSessionStoreOptions } from './pgSessionStore.js';
export { SCHEMA_VERSION } from './pgSchema.js';
export { JobNotFoundError, SessionLeaseHeldError, SessionStoreUnavailableError } from './errors.js';
