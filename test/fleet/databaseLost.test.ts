/**
 * The session database dies in the middle of a run (the server is killed while the model is
 * answering). The run must end with a typed error rather than go on unrecorded: the loop writes
 * an iteration's records before its next request, that write fails, and the turn ends
 * `turn_setup_failed` without sending the next request. Nothing that was acknowledged is lost:
 * with the database back, the session holds the prompt it stored before the first request, and a
 * resume sends a valid request. A throw-away cluster of its own (this test kills it).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createPgSessionStore } from '../../src/fleet/pgSessionStore.js';
import { rebuildMessages } from '../../src/session/rebuild.js';
import { gate } from '../../src/testing/gate.js';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import { assertBuilt, makeSandbox, parseLines, removeSandboxes, runAgainst, runCli } from '../cli/helpers.js';
import { eventually } from '../eventually.js';
import { pgUnavailableReason, startPgCluster, type PgCluster } from './pgCluster.js';

describe.skipIf(pgUnavailableReason !== undefined)('the session database lost mid-run', () => {
  let cluster: PgCluster;
  let url: string;
  let server: ScriptedServer;
  const databaseDown = gate();

  beforeAll(async () => {
    assertBuilt();
    cluster = await startPgCluster();
    url = await cluster.createDatabase('lost');
    server = await startScriptedServer({
      script: [
        // The first answer ends only once the database is gone: its tool runs, then the loop must
        // store the call and its result before it asks again, and cannot.
        { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_read', name: 'Read', input: { file_path: 'note.txt' } }], endAfter: databaseDown.promise },
        { kind: 'message', blocks: [{ type: 'text', text: 'never asked for' }] },
      ],
    });
  });
  afterAll(async () => {
    databaseDown.open();
    await server?.close();
    await cluster?.stop();
    removeSandboxes();
  });

  test('the run ends turn_setup_failed with one error result, no further request; the stored prompt survives and resumes', async () => {
    const id = '5d0c2f7e-9a51-4c3e-b7f4-0a2d6c1e8b90';
    const box = makeSandbox({ 'note.txt': 'the note\n' });
    const running = runCli(['-p', 'read the note', '--session-id', id, '--session-store', url, '--output-format', 'stream-json', '--verbose'], {
      ...box,
      baseURL: server.baseURL,
      // A short lease: the run cannot release it with the database gone, so it must run out.
      env: { RXAGENT_SESSION_LEASE_MS: '1500' },
    });
    await server.waitForRequests(1);
    await cluster.halt();
    databaseDown.open();
    const run = await running;

    expect(run.code).toBe(1);
    const lines = parseLines(run.stdout);
    const results = lines.filter((l) => l.type === 'result');
    expect(results).toHaveLength(1);
    expect(lines.at(-1)).toBe(results[0]);
    expect(results[0]).toMatchObject({ subtype: 'error_during_execution', is_error: true, session_id: id });
    expect(JSON.stringify(results[0])).toMatch(/session|transcript|store/i);
    // The request whose records could not be stored was never sent.
    expect(server.requests).toHaveLength(1);

    await cluster.restart();
    const store = await createPgSessionStore({ url, workspace: '/' });
    try {
      const { records, warnings } = await store.read(id);
      expect(warnings).toEqual([]);
      const stored = JSON.stringify(rebuildMessages(records).messages);
      expect(stored).toContain('read the note');
    } finally {
      await store.end();
    }

    // The dead run could not release its lease; once it ran out, the session resumes with a
    // valid request that carries the stored prompt.
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      await eventually(async () => (await db.query(`SELECT 1 FROM rxagent.sessions WHERE session_id = $1 AND lease_expires_at < now()`, [id])).rowCount === 1, { timeoutMs: 60_000, what: 'the lease ran out' });
    } finally {
      await db.end();
    }
    const resumed = await runAgainst([{ kind: 'message', blocks: [{ type: 'text', text: 'Back.' }] }], ['-p', 'go on', '--resume', id, '--output-format', 'json', '--session-store', url], makeSandbox());
    expect(resumed.stderr).toBe('');
    expect(resumed.code).toBe(0);
    const request = resumed.server.requests[0]!;
    expect(request.validationErrors).toEqual([]);
    const sent = JSON.stringify(request.body!.messages);
    expect(sent).toContain('read the note');
    expect(sent).toContain('go on');
  });
});
