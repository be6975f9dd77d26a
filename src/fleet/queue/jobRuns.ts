/**
 * What rxagent remembers about a job beside the queue (table `rxagent.job_runs`, in the session
 * database): how long the session's history was when the job's run first started — so a retry
 * knows whether the job's prompt is already in the transcript — and the result once the run ended,
 * so a retry after the run finished returns that result instead of running again.
 */
import type pg from 'pg';
import { SCHEMA } from '../pgSchema.js';

export type JobProgress =
  | { readonly kind: 'new' }
  | { readonly kind: 'started'; readonly historyLength: number; readonly attempts: number }
  | { readonly kind: 'ended'; readonly resultLine: string; readonly exitCode: number };

/** Claims the job's first start (history length at that point) or reports an earlier attempt. */
export async function recordStart(db: pg.Pool, jobId: string, sessionId: string, historyLength: number): Promise<JobProgress> {
  const inserted = await db.query(
    `INSERT INTO ${SCHEMA}.job_runs (job_id, session_id, history_length) VALUES ($1, $2, $3) ON CONFLICT (job_id) DO NOTHING`,
    [jobId, sessionId, historyLength],
  );
  if (inserted.rowCount === 1) return { kind: 'new' };
  const { rows } = await db.query<{ history_length: number; attempts: number; result: string | null; exit_code: number | null }>(
    `UPDATE ${SCHEMA}.job_runs SET attempts = attempts + 1 WHERE job_id = $1 RETURNING history_length, attempts, result, exit_code`,
    [jobId],
  );
  const row = rows[0]!;
  return row.result !== null
    ? { kind: 'ended', resultLine: row.result, exitCode: row.exit_code ?? 1 }
    : { kind: 'started', historyLength: row.history_length, attempts: row.attempts };
}

/** The stored result of an ended job, if any (a retry that finds one returns it). */
export async function storedResult(db: pg.Pool, jobId: string): Promise<{ resultLine: string; exitCode: number } | undefined> {
  const { rows } = await db.query<{ result: string | null; exit_code: number | null }>(
    `SELECT result, exit_code FROM ${SCHEMA}.job_runs WHERE job_id = $1`,
    [jobId],
  );
  const row = rows[0];
  return row?.result == null ? undefined : { resultLine: row.result, exitCode: row.exit_code ?? 1 };
}

/** Keeps the first result of a job; a later one (a run that was taken over) is dropped. */
export async function recordResult(db: pg.Pool, jobId: string, resultLine: string, exitCode: number): Promise<{ resultLine: string; exitCode: number }> {
  await db.query(`UPDATE ${SCHEMA}.job_runs SET result = $2, exit_code = $3 WHERE job_id = $1 AND result IS NULL`, [jobId, resultLine, exitCode]);
  return (await storedResult(db, jobId)) ?? { resultLine, exitCode };
}
