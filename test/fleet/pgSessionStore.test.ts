/**
 * The PostgreSQL session store against a real server (a throw-away cluster): the JSONL store's
 * guarantees — append order, resume with a cut-off turn repaired, fork, corrupt rows skipped — and
 * the lease: one writer per session, a refused second open, take-over after expiry, fencing.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createPgSessionStore, type PgSessionStore } from '../../src/fleet/pgSessionStore.js';
import { SessionStoreUnavailableError } from '../../src/fleet/errors.js';
import { SessionExistsError, SessionLockedError, SessionNotFoundError, SessionWriteError } from '../../src/session/errors.js';
import type { SessionRecord } from '../../src/session/records.js';
import { fork, resume, startSession } from '../../src/session/sessions.js';
import { pgUnavailableReason, startPgCluster, type PgCluster } from './pgCluster.js';

if (pgUnavailableReason) console.warn(`skipping the PostgreSQL store tests: ${pgUnavailableReason}`);

function user(sessionId: string, uuid: string, parentUuid: string | null, content: string): SessionRecord {
  return {
    uuid, parentUuid, sessionId, timestamp: new Date(0).toISOString(), cwd: '/w', version: 't', type: 'user',
    message: { role: 'user', content },
  } as SessionRecord;
}
function assistant(sessionId: string, uuid: string, parentUuid: string, content: unknown): SessionRecord {
  return {
    uuid, parentUuid, sessionId, timestamp: new Date(0).toISOString(), cwd: '/w', version: 't', type: 'assistant',
    message: { role: 'assistant', content },
  } as SessionRecord;
}

describe.skipIf(pgUnavailableReason !== undefined)('PostgreSQL session store', () => {
  let cluster: PgCluster;
  let url: string;
  const stores: PgSessionStore[] = [];
  const storeFor = async (workspace = '/w', extra: { leaseMs?: number; renewIntervalMs?: number } = {}) => {
    const store = await createPgSessionStore({ url, workspace, ...extra });
    stores.push(store);
    return store;
  };

  beforeAll(async () => {
    cluster = await startPgCluster();
    url = await cluster.createDatabase('store');
  });
  afterAll(async () => {
    await Promise.allSettled(stores.map((s) => s.end()));
    await cluster?.stop();
  });

  test('appends are read back in order; a resumed session gets synthetic results for a cut-off tool turn', async () => {
    const store = await storeFor();
    const id = randomUUID();
    const writer = await store.open(id, { mode: 'create' });
    await writer.append([user(id, 'u1', null, 'list the files')]);
    await writer.append([assistant(id, 'a1', 'u1', [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }])]);
    await writer.close();

    const transcript = await store.read(id);
    expect(transcript.records.map((r) => r.uuid)).toEqual(['u1', 'a1']);
    expect(transcript.warnings).toEqual([]);

    // A second store object (another machine, another workspace) resumes the same session.
    const elsewhere = await storeFor('/other/dir');
    const session = await resume(elsewhere, id);
    expect(session.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(session.messages[2])).toContain('toolu_1');
    await session.close();
    // The repair was persisted: the transcript says what the model will be told.
    const after = await store.read(id);
    expect(after.records).toHaveLength(3);
    expect(after.records[2]).toMatchObject({ type: 'user', parentUuid: 'a1', reason: 'orphan_results' });
  });

  test('create refuses an existing session, resume an unknown one; both with the typed errors', async () => {
    const store = await storeFor();
    const id = randomUUID();
    await (await store.open(id, { mode: 'create' })).close();
    await expect(store.open(id, { mode: 'create' })).rejects.toBeInstanceOf(SessionExistsError);
    await expect(store.open(randomUUID(), { mode: 'resume' })).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(store.read(randomUUID())).rejects.toBeInstanceOf(SessionNotFoundError);
  });

  test('of ten concurrent resumes of one session exactly one gets the writer; the others are refused with SessionLockedError', async () => {
    const store = await storeFor();
    const id = randomUUID();
    await (await store.open(id, { mode: 'create' })).close();
    const outcomes = await Promise.allSettled(Array.from({ length: 10 }, async () => (await storeFor()).open(id, { mode: 'resume' })));
    const winners = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(winners).toHaveLength(1);
    expect(refused).toHaveLength(9);
    for (const r of refused) {
      expect(r.reason).toBeInstanceOf(SessionLockedError);
      expect(String((r.reason as Error).message)).toMatch(/already open for writing by .* pid \d+/);
    }
    await (winners[0] as PromiseFulfilledResult<Awaited<ReturnType<PgSessionStore['open']>>>).value.close();
    // Released: the next resume gets it.
    await (await store.open(id, { mode: 'resume' })).close();
  });

  test('two writers appending concurrently to two sessions interleave nothing and lose nothing', async () => {
    const store = await storeFor();
    const ids = [randomUUID(), randomUUID()];
    const writers = await Promise.all(ids.map((id) => store.open(id, { mode: 'create' })));
    await Promise.all(
      writers.map((writer, w) =>
        Promise.all(Array.from({ length: 50 }, (_, i) => writer.append([user(ids[w]!, `r${i}`, i === 0 ? null : `r${i - 1}`, `m${i}`)]))),
      ),
    );
    await Promise.all(writers.map((w) => w.close()));
    for (const id of ids) {
      const { records } = await store.read(id);
      expect(records.map((r) => r.uuid)).toEqual(Array.from({ length: 50 }, (_, i) => `r${i}`));
    }
  });

  test('a partitioned holder: once its lease expired another writer takes over, and the old writer can no longer append (fenced)', async () => {
    // No renewal during the test (a partitioned machine renews nothing); its lease is then run out by hand.
    const cutOff = await storeFor('/w', { renewIntervalMs: 3_600_000 });
    const id = randomUUID();
    const old = await cutOff.open(id, { mode: 'create' });
    await old.append([user(id, 'u1', null, 'before the partition')]);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    await db.query(`UPDATE rxagent.sessions SET lease_expires_at = now() - interval '1 second' WHERE session_id = $1`, [id]);
    await db.end();

    const other = await storeFor('/w');
    const taker = await other.open(id, { mode: 'resume' });
    await taker.append([user(id, 'u2', 'u1', 'from the new holder')]);
    const refused = await old.append([user(id, 'u3', 'u1', 'from the old holder')]).then(() => undefined, (e: unknown) => e);
    expect(refused).toBeInstanceOf(SessionWriteError);
    expect((refused as SessionWriteError).code).toBe('LEASE_LOST');
    await taker.close();
    await old.close();
    expect((await other.read(id)).records.map((r) => r.uuid)).toEqual(['u1', 'u2']);
  });

  test('a corrupt row is skipped with a warning, as the JSONL parser skips a corrupt line', async () => {
    const store = await storeFor();
    const id = randomUUID();
    const writer = await store.open(id, { mode: 'create' });
    await writer.append([user(id, 'u1', null, 'one')]);
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    await db.query(`INSERT INTO rxagent.records (session_id, body) VALUES ($1, '{"torn'), ($1, '{"type":"nonsense"}')`, [id]);
    await db.end();
    await writer.append([user(id, 'u2', 'u1', 'two')]);
    await writer.close();
    const { records, warnings } = await store.read(id);
    expect(records.map((r) => r.uuid)).toEqual(['u1', 'u2']);
    expect(warnings.map((w) => w.kind)).toEqual(['invalid_json', 'invalid_record']);
  });

  test('fork copies the history into a new session and leaves the origin untouched', async () => {
    const store = await storeFor();
    const id = randomUUID();
    const writer = await store.open(id, { mode: 'create' });
    await writer.append([user(id, 'u1', null, 'hello'), assistant(id, 'a1', 'u1', [{ type: 'text', text: 'hi' }])]);
    const forked = await fork(store, id); // while the origin is still open elsewhere
    expect(forked.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    await forked.close();
    await writer.close();
    expect((await store.read(id)).records).toHaveLength(2);
    expect((await store.list()).map((s) => s.sessionId)).toContain(forked.sessionId);
  });

  test('a new session through startSession is listed for its workspace only', async () => {
    const store = await storeFor('/ws/listed');
    const session = await startSession(store);
    await session.close();
    expect((await store.list()).map((s) => s.sessionId)).toEqual([session.sessionId]);
    expect((await (await storeFor('/ws/other')).list()).map((s) => s.sessionId)).not.toContain(session.sessionId);
  });

  test('an unreachable database at start: SessionStoreUnavailableError naming the URL without its password', async () => {
    const closedPort = `postgres://u:secret-password@127.0.0.1:${cluster.port + 1}/x`;
    const error = await createPgSessionStore({ url: closedPort, workspace: '/w' }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(SessionStoreUnavailableError);
    expect((error as Error).message).toContain(`127.0.0.1:${cluster.port + 1}`);
    expect((error as Error).message).not.toContain('secret-password');
  });
});
