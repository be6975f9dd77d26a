/**
 * The database dies while an append is inside its transaction. The pg client of that append is
 * checked out of the pool, where pg-pool does not listen for its 'error' event; before
 * src/fleet/poolClient.ts that event was an uncaught exception, which ended a real run with
 * exit 1 and no result line (test/fleet/databaseLost failed once that way under load). The
 * append must reject with the store's typed error instead, and nothing else may be thrown.
 *
 * Deterministic: a second connection holds the session row's lock, so the append waits inside
 * its transaction (`FOR UPDATE`); the test waits until PostgreSQL reports it waiting, then kills
 * the server.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createPgSessionStore } from '../../src/fleet/pgSessionStore.js';
import { SessionWriteError } from '../../src/session/errors.js';
import type { SessionRecord } from '../../src/session/records.js';
import { eventually } from '../eventually.js';
import { pgUnavailableReason, startPgCluster, type PgCluster } from './pgCluster.js';

if (pgUnavailableReason) console.warn(`skipping the in-flight write test: ${pgUnavailableReason}`);

function user(sessionId: string, content: string): SessionRecord {
  return {
    uuid: randomUUID(), parentUuid: null, sessionId, timestamp: new Date(0).toISOString(), cwd: '/w', version: 't', type: 'user',
    message: { role: 'user', content },
  } as SessionRecord;
}

describe.skipIf(pgUnavailableReason !== undefined)('an append in flight when the database dies', () => {
  let cluster: PgCluster;
  let url: string;
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => void uncaught.push(error);

  beforeAll(async () => {
    cluster = await startPgCluster();
    url = await cluster.createDatabase('inflight');
    process.on('uncaughtException', onUncaught);
  });
  afterAll(async () => {
    process.off('uncaughtException', onUncaught);
    await cluster?.stop();
  });

  test('rejects with SessionWriteError; no error event escapes', async () => {
    const warnings: string[] = [];
    const store = await createPgSessionStore({ url, workspace: '/w', onWarning: (w) => warnings.push(w) });
    const id = randomUUID();
    const writer = await store.open(id, { mode: 'create' });
    await writer.append([user(id, 'first')]);

    const holder = new pg.Client({ connectionString: url });
    holder.on('error', () => undefined); // this connection dies with the server too
    await holder.connect();
    const holderPid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    await holder.query('BEGIN');
    await holder.query('SELECT 1 FROM rxagent.sessions WHERE session_id = $1 FOR UPDATE', [id]);

    const appended = writer.append([user(id, 'second')]);
    const outcome = appended.then(
      () => 'written',
      (error: unknown) => error,
    );
    const watcher = new pg.Client({ connectionString: url });
    watcher.on('error', () => undefined);
    await watcher.connect();
    await eventually(
      async () => (await watcher.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%FOR UPDATE%' AND pid <> $1`, [holderPid])).rowCount === 1,
      { timeoutMs: 60_000, what: 'the append waiting for the row lock' },
    );

    await cluster.halt();
    const error = await outcome;
    expect(error).toBeInstanceOf(SessionWriteError);
    // Give any stray 'error' event of the killed connections a turn of the loop to surface.
    await new Promise((resolve) => setImmediate(resolve));
    expect(uncaught).toEqual([]);
    await writer.close();
    await store.end();
    await cluster.restart();
  });
});
