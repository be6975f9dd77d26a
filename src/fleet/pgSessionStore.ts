/**
 * A `SessionStore` in PostgreSQL (via `pg`): a drop-in for the JSONL store, so start, resume,
 * continue and fork work unchanged across machines. One row per record, in append order.
 *
 * Durability: an `append` resolves once its transaction committed (PostgreSQL's default
 * `synchronous_commit = on` flushes the WAL first), the same promise the JSONL store's fdatasync
 * gives. One writer per session: the lease of pgLease.ts, renewed while the writer is open and
 * checked by every append in its own transaction.
 */
import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import pg from 'pg';
import { SessionClosedError, SessionExistsError, SessionNotFoundError, SessionWriteError } from '../session/errors.js';
import { parseTranscript, type ParsedTranscript } from '../session/parseTranscript.js';
import { assertValidSessionId } from '../session/paths.js';
import type { SessionRecord } from '../session/records.js';
import type { OpenMode, SessionInfo, SessionStore, SessionTranscript, SessionWriter } from '../session/store.js';
import { describeUrl, SessionLeaseHeldError, SessionStoreUnavailableError } from './errors.js';
import { withPoolClient } from './poolClient.js';
import { createWithLease, releaseLease, renewLease, takeLease, type LeaseClaim } from './pgLease.js';
import { migrate, SCHEMA } from './pgSchema.js';
import { serializeRecords } from './serializeRecords.js';
import { codeOf } from '../session/lock.js';

export interface PgSessionStoreOptions {
  /** `postgres://user:password@host:port/database`. */
  readonly url: string;
  /** The workspace new sessions belong to (`list` and `continue` look only at its sessions). */
  readonly workspace: string;
  /** How long a lease lasts without renewal (default 30 s); a dead holder's session is free after it. */
  readonly leaseMs?: number;
  /** How often an open writer renews its lease (default a third of `leaseMs`). */
  readonly renewIntervalMs?: number;
  /** Check each appended record against the schema (default true). */
  readonly validate?: boolean;
  /** Strings never written (replaced by `[redacted]`); shorter than 8 are ignored. */
  readonly redactSecrets?: readonly string[];
  /** Told about trouble that is not an error of any call (a dropped idle connection). */
  readonly onWarning?: (message: string) => void;
}

export interface PgSessionStore extends SessionStore {
  /**
   * The same database and pool, another workspace: a session's subagent transcripts live under
   * their own (`list` and `continue` of the project never see them).
   */
  scoped(workspace: string): SessionStore;
  /** Closes the connection pool (writers should be closed first). */
  end(): Promise<void>;
}

export const DEFAULT_LEASE_MS = 30_000;

/** Connects, creates or migrates the schema, and returns the store. Rejects with `SessionStoreUnavailableError`. */
export async function createPgSessionStore(options: PgSessionStoreOptions): Promise<PgSessionStore> {
  const where = describeUrl(options.url);
  const pool = new pg.Pool({ connectionString: options.url, connectionTimeoutMillis: 10_000, max: 4 });
  // Without a listener a dropped idle connection would crash the process; the next query reports it.
  pool.on('error', (error) => options.onWarning?.(`session store ${where}: ${error.message}`));
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new SessionStoreUnavailableError(where, error);
  }
  const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
  const serialize = {
    validate: options.validate ?? true,
    secrets: (options.redactSecrets ?? []).filter((secret) => secret.length >= 8),
  };
  const context: StoreContext = { pool, where, leaseMs, serialize, renewIntervalMs: options.renewIntervalMs };
  return {
    ...storeIn(context, resolve(options.workspace)),
    scoped: (workspace) => storeIn(context, workspace),
    end: () => pool.end(),
  };
}

interface StoreContext {
  readonly pool: pg.Pool;
  readonly where: string;
  readonly leaseMs: number;
  readonly serialize: Parameters<typeof serializeRecords>[2];
  readonly renewIntervalMs: number | undefined;
}

/** The store's operations for one workspace. */
function storeIn({ pool, where, leaseMs, serialize, renewIntervalMs }: StoreContext, workspace: string): SessionStore {
  const holderName = `${hostname()} pid ${process.pid}`;
  return {
    workspace,
    async open(sessionId: string, { mode }: { readonly mode: OpenMode }): Promise<SessionWriter> {
      assertValidSessionId(sessionId);
      const claim: LeaseClaim = { sessionId, workspace, token: randomUUID(), holder: holderName, leaseMs };
      const renewEveryMs = renewIntervalMs ?? Math.max(1, Math.floor(leaseMs / 3));
      const outcome = await (mode === 'create' ? createWithLease(pool, claim) : takeLease(pool, claim));
      switch (outcome.kind) {
        case 'taken':
          return createPgWriter(pool, claim, where, serialize, renewEveryMs);
        case 'exists':
          throw new SessionExistsError(sessionId, where);
        case 'missing':
          throw new SessionNotFoundError(sessionId, where);
        case 'held':
          throw new SessionLeaseHeldError(sessionId, where, outcome.holder, outcome.expiresAt);
      }
    },
    async list(): Promise<SessionInfo[]> {
      const { rows } = await pool.query<{ session_id: string; modified_at: Date; size_bytes: string }>(
        `SELECT session_id, modified_at, size_bytes FROM ${SCHEMA}.sessions WHERE workspace = $1
          ORDER BY modified_at DESC, session_id`,
        [workspace],
      );
      return rows.map((row) => ({
        sessionId: row.session_id,
        modifiedAt: row.modified_at,
        sizeBytes: Number(row.size_bytes),
        location: `${where}#${row.session_id}`,
      }));
    },
    async read(sessionId: string): Promise<SessionTranscript> {
      assertValidSessionId(sessionId);
      const exists = await pool.query(`SELECT 1 FROM ${SCHEMA}.sessions WHERE session_id = $1`, [sessionId]);
      if (exists.rowCount === 0) throw new SessionNotFoundError(sessionId, where);
      return { sessionId, ...(await readSessionRecords(pool, sessionId)) };
    },
  };
}

/** A session's records in append order, parsed as the JSONL store parses its lines. */
export async function readSessionRecords(pool: pg.Pool, sessionId: string): Promise<ParsedTranscript> {
  const { rows } = await pool.query<{ body: string }>(`SELECT body FROM ${SCHEMA}.records WHERE session_id = $1 ORDER BY id`, [sessionId]);
  // One row is one JSONL line: the JSONL parser's skipping rules (and warnings) apply as they are.
  return parseTranscript(rows.map((row) => `${row.body.replaceAll('\n', ' ')}\n`).join(''));
}

function createPgWriter(
  pool: pg.Pool,
  claim: LeaseClaim,
  where: string,
  serialize: Parameters<typeof serializeRecords>[2],
  renewEveryMs: number,
): SessionWriter {
  const { sessionId } = claim;
  let tail: Promise<void> = Promise.resolve();
  let failure: SessionWriteError | undefined;
  let closed = false;
  let closing: Promise<void> | undefined;
  const fail = (code: string | undefined, cause: unknown): SessionWriteError => {
    failure ??= new SessionWriteError(sessionId, where, code, cause);
    return failure;
  };

  // Renewal keeps the lease while the run is between appends (a long tool call, a slow model).
  const renewal = setInterval(() => {
    renewLease(pool, claim).then(
      (ours) => void (ours || fail('LEASE_LOST', new Error('the lease expired and was taken over by another writer'))),
      () => undefined, // the database is unreachable now: the next append reports it
    );
  }, renewEveryMs);
  renewal.unref();

  const write = async (bodies: string[]): Promise<void> => {
    if (failure) throw failure;
    try {
      await withPoolClient(pool, (client) => transaction(client, bodies));
    } catch (error) {
      if (error instanceof SessionWriteError) throw error;
      // Unknown outcome (the connection died around COMMIT): the writer stops, as after a torn write.
      throw fail(codeOf(error), error);
    }
  };

  const transaction = async (client: pg.PoolClient, bodies: string[]): Promise<void> => {
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ lease_token: string | null }>(
        `SELECT lease_token FROM ${SCHEMA}.sessions WHERE session_id = $1 FOR UPDATE`,
        [sessionId],
      );
      if (rows[0]?.lease_token !== claim.token) {
        await client.query('ROLLBACK');
        throw fail('LEASE_LOST', new Error('the lease expired and was taken over by another writer; nothing of this append was written'));
      }
      const bytes = bodies.reduce((sum, body) => sum + Buffer.byteLength(body) + 1, 0);
      await client.query(`INSERT INTO ${SCHEMA}.records (session_id, body) SELECT $1, unnest($2::text[])`, [sessionId, bodies]);
      await client.query(
        `UPDATE ${SCHEMA}.sessions SET modified_at = now(), size_bytes = size_bytes + $2,
                lease_expires_at = now() + $3 * interval '1 millisecond' WHERE session_id = $1`,
        [sessionId, bytes, claim.leaseMs],
      );
      await client.query('COMMIT');
    } catch (error) {
      if (!(error instanceof SessionWriteError)) await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  };

  return {
    sessionId,
    append(records: readonly SessionRecord[]): Promise<void> {
      if (closed) return Promise.reject(new SessionClosedError(sessionId));
      if (failure) return Promise.reject(failure);
      if (records.length === 0) return tail;
      const bodies = serializeRecords(sessionId, records, serialize);
      if (!Array.isArray(bodies)) return Promise.reject(bodies);
      const done = tail.then(() => write(bodies));
      tail = done.catch(() => undefined);
      return done;
    },
    close(): Promise<void> {
      closed = true;
      closing ??= tail.then(async () => {
        clearInterval(renewal);
        await releaseLease(pool, claim).catch(() => undefined); // unreachable: the lease simply expires
      });
      return closing;
    },
  };
}
