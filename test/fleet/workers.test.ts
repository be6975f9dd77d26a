/**
 * Runs as jobs, with the real parts: a throw-away PostgreSQL cluster holding both the queue
 * (pg-boss) and the sessions, two `rxagent worker` processes, the scripted model on 127.0.0.1.
 * One worker is SIGKILLed while it holds runs; every job must still end with exactly one result,
 * every transcript must give each tool_use exactly one tool_result, and every request the model
 * server saw must be valid.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openRunQueue, type RunQueue } from '../../src/fleet/queue/runQueue.js';
import { createPgSessionStore } from '../../src/fleet/pgSessionStore.js';
import { rebuildMessages } from '../../src/session/rebuild.js';
import { gate } from '../../src/testing/gate.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import { assertBuilt, makeSandbox, removeSandboxes, runCli } from '../cli/helpers.js';
import { eventually } from '../eventually.js';
import { spawnWorker, type WorkerProcess } from './workerProcess.js';
import { pgUnavailableReason, startPgCluster, type PgCluster } from './pgCluster.js';

const LEASE_SECONDS = 3;

/** The kill test's jobs (its prompts say so); the other test's runs are never held. */
const isKillTestRequest = (request: MessagesRequest | undefined) => JSON.stringify(request?.messages[0]?.content).includes('job number');

/**
 * A Read of the worker's note, then an answer naming the prompt: two requests per job. The kill
 * test's answers wait for its gate; any other test's go at once, so the tests run in any order.
 */
function answer(request: MessagesRequest, hold: Promise<void>): ScriptedResponse {
  const last = request.messages[request.messages.length - 1]!;
  const text = JSON.stringify(last.content);
  const timing = isKillTestRequest(request) ? { endAfter: hold } : {};
  if (text.includes('tool_result')) return { kind: 'message', blocks: [{ type: 'text', text: 'Done.' }], ...timing };
  return { kind: 'message', blocks: [{ type: 'tool_use', name: 'Read', input: { file_path: 'note.txt' } }], ...timing };
}

describe.skipIf(pgUnavailableReason !== undefined)('workers taking runs from the queue', () => {
  let cluster: PgCluster;
  let url: string;
  let queue: RunQueue;
  let server: ScriptedServer;
  const release = gate();
  const workers: WorkerProcess[] = [];

  const startWorkerProcess = (): WorkerProcess => {
    const worker = spawnWorker({ url, modelBaseURL: server.baseURL, concurrency: 2, leaseSeconds: LEASE_SECONDS });
    workers.push(worker);
    return worker;
  };

  beforeAll(async () => {
    assertBuilt();
    cluster = await startPgCluster();
    url = await cluster.createDatabase('fleet');
    queue = await openRunQueue({ url, leaseSeconds: LEASE_SECONDS });
    server = await startScriptedServer({ script: (request) => answer(request, release.promise) });
  });
  afterAll(async () => {
    release.open();
    for (const w of workers) w.child.kill('SIGKILL');
    await Promise.allSettled(workers.map((w) => w.exited));
    await queue?.stop();
    await server?.close();
    await cluster?.stop();
    removeSandboxes();
  });

  test('two workers, 20 jobs, one SIGKILLed mid-way: 20 results, one each; valid transcripts; every request valid', async () => {
    const t0 = performance.now();
    const ids: string[] = [];
    for (let i = 0; i < 20; i++) ids.push(await queue.submit({ args: [`job number ${i}`, '--output-format', 'json'], sessionId: crypto.randomUUID() }));
    const doomed = startWorkerProcess();
    const survivor = startWorkerProcess();
    // Both hold two runs each, all waiting on the model's first answer: now one machine dies.
    await eventually(() => doomed.started.size === 2 && survivor.started.size === 2, { timeoutMs: 90_000, what: 'both workers took two runs' });
    // All four runs asked the model (and wait for its answer): the prompts are in the transcripts.
    await eventually(() => server.requests.filter((r) => isKillTestRequest(r.body)).length === 4, { timeoutMs: 90_000, what: 'four model requests held' });
    doomed.child.kill('SIGKILL');
    await doomed.exited;
    const killedAt = performance.now();
    release.open();

    const ended = await eventually(async () => {
      const jobs = await Promise.all(ids.map((id) => queue.job(id)));
      return jobs.every((j) => j?.state === 'completed') ? jobs : undefined;
    }, { timeoutMs: 300_000, everyMs: 250, what: 'all 20 jobs completed' });
    const allDoneAt = performance.now();

    const retried = ended.filter((j) => j!.retryCount > 0);
    const results = ended.map((j) => JSON.parse(j!.output!.resultLine!) as { subtype: string; result: string; session_id: string });
    expect(results.every((r) => r.subtype === 'success' && r.result === 'Done.')).toBe(true);
    // The killed worker's two runs were retried, and only those.
    expect(retried.map((j) => j!.id).sort()).toEqual([...doomed.started].sort());
    // Exactly one result per job: the job table has one per job, and the store kept exactly one.
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    const { rows } = await db.query<{ job_id: string; attempts: number }>(`SELECT job_id, attempts FROM rxagent.job_runs WHERE result IS NOT NULL AND job_id = ANY($1)`, [ids]);
    await db.end();
    expect(rows.map((r) => r.job_id).sort()).toEqual([...ids].sort());

    const store = await createPgSessionStore({ url, workspace: '/' });
    try {
      for (const result of results) {
        const { records, warnings } = await store.read(result.session_id);
        expect(warnings).toEqual([]);
        const view = rebuildMessages(records);
        const sent = JSON.stringify(view.messages);
        for (const [, toolUseId] of sent.matchAll(/"type":"tool_use","id":"([^"]+)"/g)) {
          expect(sent.split(`"tool_use_id":"${toolUseId}"`)).toHaveLength(2);
        }
        expect(view.messages[view.messages.length - 1]!.role).toBe('assistant');
      }
    } finally {
      await store.end();
    }
    expect(server.requests.every((r) => r.validationErrors.length === 0)).toBe(true);
    const mine = server.requests.filter((r) => isKillTestRequest(r.body));
    // Two requests per job, plus the killed worker's two that never got their answer.
    expect(mine.filter((r) => r.closedByClient)).toHaveLength(2);
    expect(mine).toHaveLength(42);
    // Answered requests are never sent twice: a retry resumes from what the transcript holds.
    const answered = mine.filter((r) => !r.closedByClient).map((r) => JSON.stringify(r.body?.messages));
    expect(new Set(answered).size).toBe(answered.length);
    console.info(
      `fleet figures: 20 jobs, ${retried.length} retried (the killed worker's), ${mine.length} model requests, ` +
        `kill → all done ${((allDoneAt - killedAt) / 1000).toFixed(1)} s, total ${((allDoneAt - t0) / 1000).toFixed(1)} s (lease ${LEASE_SECONDS} s)`,
    );
  });

  test('submit prints a job id, result --wait prints the result JSON once a worker ran it; an unknown job fails', async () => {
    // Its own worker, stopped at the end: one left running would take the kill test's jobs when
    // that test runs later (a shuffled order), and it must see exactly its two workers.
    const own = startWorkerProcess();
    try {
      await submitAndWait();
    } finally {
      own.child.kill('SIGTERM');
      await own.exited;
    }
  });

  async function submitAndWait(): Promise<void> {
    const box = makeSandbox();
    const submitted = await runCli(['submit', '--queue', url, '--output-format', 'json', 'job by the command'], box);
    expect(submitted.stderr).toBe('');
    expect(submitted.code).toBe(0);
    const jobId = submitted.stdout.trim();
    expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
    const result = await runCli(['result', '--queue', url, jobId, '--wait'], box);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ type: 'result', subtype: 'success', result: 'Done.' });
    const unknown = await runCli(['result', '--queue', url, crypto.randomUUID()], box);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^rxagent: job \S+ not found in the queue/);
  }
});
