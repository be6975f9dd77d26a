/**
 * The one-writer-per-session lease of the PostgreSQL store: a token in the session's row with an
 * expiry. Taking it succeeds only when nobody holds it or the holder's lease ran out (a dead or
 * partitioned machine). The holder renews it on a timer; every append checks the token under a
 * row lock in the same transaction as its insert (fencing), so a holder whose lease was taken over
 * while it was cut off can never write again: its next append fails instead of forking the chain.
 */
import type pg from 'pg';
import { SCHEMA } from './pgSchema.js';

export type TakeLeaseOutcome =
  | { readonly kind: 'taken' }
  | { readonly kind: 'held'; readonly holder: string; readonly expiresAt: Date }
  | { readonly kind: 'missing' }
  | { readonly kind: 'exists' };

export interface LeaseClaim {
  readonly sessionId: string;
  readonly workspace: string;
  readonly token: string;
  readonly holder: string;
  readonly leaseMs: number;
}

/** `create`: inserts the session row with our lease, or says it exists. */
export async function createWithLease(db: pg.Pool, claim: LeaseClaim): Promise<TakeLeaseOutcome> {
  const result = await db.query(
    `INSERT INTO ${SCHEMA}.sessions (session_id, workspace, lease_token, lease_holder, lease_expires_at)
     VALUES ($1, $2, $3, $4, now() + $5 * interval '1 millisecond')
     ON CONFLICT (session_id) DO NOTHING`,
    [claim.sessionId, claim.workspace, claim.token, claim.holder, claim.leaseMs],
  );
  return result.rowCount === 1 ? { kind: 'taken' } : { kind: 'exists' };
}

/** `resume`: takes the lease of an existing session if it is free or expired. */
export async function takeLease(db: pg.Pool, claim: LeaseClaim): Promise<TakeLeaseOutcome> {
  const taken = await db.query(
    `UPDATE ${SCHEMA}.sessions
        SET lease_token = $2, lease_holder = $3, lease_expires_at = now() + $4 * interval '1 millisecond'
      WHERE session_id = $1 AND (lease_token IS NULL OR lease_expires_at < now())`,
    [claim.sessionId, claim.token, claim.holder, claim.leaseMs],
  );
  if (taken.rowCount === 1) return { kind: 'taken' };
  const { rows } = await db.query<{ lease_holder: string | null; lease_expires_at: Date | null }>(
    `SELECT lease_holder, lease_expires_at FROM ${SCHEMA}.sessions WHERE session_id = $1`,
    [claim.sessionId],
  );
  const row = rows[0];
  if (!row) return { kind: 'missing' };
  return { kind: 'held', holder: row.lease_holder ?? 'unknown', expiresAt: row.lease_expires_at ?? new Date(0) };
}

/** Extends our lease; false when it is no longer ours (taken over after it expired). */
export async function renewLease(db: pg.Pool | pg.PoolClient, claim: LeaseClaim): Promise<boolean> {
  const result = await db.query(
    `UPDATE ${SCHEMA}.sessions SET lease_expires_at = now() + $3 * interval '1 millisecond'
      WHERE session_id = $1 AND lease_token = $2`,
    [claim.sessionId, claim.token, claim.leaseMs],
  );
  return result.rowCount === 1;
}

/** Gives the lease back (only if it is still ours). */
export async function releaseLease(db: pg.Pool, claim: LeaseClaim): Promise<void> {
  await db.query(
    `UPDATE ${SCHEMA}.sessions SET lease_token = NULL, lease_holder = NULL, lease_expires_at = NULL
      WHERE session_id = $1 AND lease_token = $2`,
    [claim.sessionId, claim.token],
  );
}
