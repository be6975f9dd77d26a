/**
 * The PostgreSQL schema of the session store, created and migrated by rxagent itself. Each
 * migration is one step of a numbered list applied in a transaction under an advisory lock, so two
 * processes starting at once against a fresh database neither race nor apply a step twice.
 *
 * Records are kept as JSON text, not `jsonb`: a row is exactly what the writer serialized (as a
 * JSONL line is), and a damaged row is read back and skipped with a warning rather than refused by
 * the database at read time.
 */
import type pg from 'pg';
import { withPoolClient } from './poolClient.js';

/** The schema all tables live in. */
export const SCHEMA = 'rxagent';

/** Every step, in order; the index + 1 is the version it brings the schema to. Never edit a step: add one. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE ${SCHEMA}.sessions (
     session_id text PRIMARY KEY,
     workspace text NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now(),
     modified_at timestamptz NOT NULL DEFAULT now(),
     size_bytes bigint NOT NULL DEFAULT 0,
     lease_token uuid,
     lease_holder text,
     lease_expires_at timestamptz
   );
   CREATE INDEX sessions_by_workspace ON ${SCHEMA}.sessions (workspace, modified_at DESC);
   CREATE TABLE ${SCHEMA}.records (
     id bigserial PRIMARY KEY,
     session_id text NOT NULL REFERENCES ${SCHEMA}.sessions (session_id),
     body text NOT NULL
   );
   CREATE INDEX records_by_session ON ${SCHEMA}.records (session_id, id);`,
  // Runs as jobs: where a job's run started in its session, and its result once it ended, so a
  // retried job resumes instead of starting over and never produces a second result.
  `CREATE TABLE ${SCHEMA}.job_runs (
     job_id text PRIMARY KEY,
     session_id text NOT NULL,
     history_length int NOT NULL,
     attempts int NOT NULL DEFAULT 1,
     result text,
     exit_code int
   );`,
];

/** The version this build of rxagent writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

/** A stable key for `pg_advisory_xact_lock`: "rxagent" in ASCII. */
const MIGRATION_LOCK_KEY = 0x72786167;

/** Creates or upgrades the schema; refuses a database written by a newer rxagent. */
export async function migrate(pool: pg.Pool): Promise<void> {
  await withPoolClient(pool, async (client) => {
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${SCHEMA}`);
      await client.query(`CREATE TABLE IF NOT EXISTS ${SCHEMA}.schema_version (version int NOT NULL)`);
      const { rows } = await client.query<{ version: number }>(`SELECT version FROM ${SCHEMA}.schema_version`);
      const current = rows[0]?.version ?? 0;
      if (current > SCHEMA_VERSION) {
        throw new Error(`the database's rxagent schema is version ${current}, newer than this rxagent knows (${SCHEMA_VERSION}); upgrade rxagent`);
      }
      for (let version = current; version < SCHEMA_VERSION; version++) await client.query(MIGRATIONS[version]!);
      if (rows.length === 0) await client.query(`INSERT INTO ${SCHEMA}.schema_version (version) VALUES ($1)`, [SCHEMA_VERSION]);
      else await client.query(`UPDATE ${SCHEMA}.schema_version SET version = $1`, [SCHEMA_VERSION]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
  });
}
