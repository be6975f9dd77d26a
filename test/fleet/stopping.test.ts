/**
 * Stopping a worker, as the README promises: a first SIGTERM takes no new job and lets the
 * running one finish; a second hands the running one back to the queue at once, and another
 * worker resumes it from its transcript, with exactly one result. Real PostgreSQL (throw-away
 * cluster), real worker processes, the scripted model on 127.0.0.1; every wait is for an event
 * (a line on the worker's stderr, a request at the server, a job's state), never a duration.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openRunQueue, type RunQueue } from '../../src/fleet/queue/runQueue.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { gate, type Gate } from '../../src/testing/gate.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import { assertBuilt, CLI, makeSandbox, removeSandboxes } from '../cli/helpers.js';
import { eventually } from '../eventually.js';
import { pgUnavailableReason, startPgCluster, type PgCluster } from './pgCluster.js';

const LEASE_SECONDS = 3;

interface WorkerProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  readonly stderr: () => string;
}

describe.skipIf(pgUnavailableReason !== undefined)('stopping a worker', () => {
  let cluster: PgCluster;
  let url: string;
  let queue: RunQueue;
  let server: ScriptedServer;
  /** Each prompt's answer waits for its own gate (opened by the test). */
  const holds = new Map<string, Gate>();
  const workers: WorkerProcess[] = [];

  const holdFor = (prompt: string) => {
    const existing = holds.get(prompt);
    if (existing) return existing;
    const made = gate();
    holds.set(prompt, made);
    return made;
  };
  const answer = (request: MessagesRequest): ScriptedResponse => {
    const prompt = JSON.stringify(request.messages[0]?.content);
    const key = [...holds.keys()].find((k) => prompt.includes(k)) ?? '';
    const endAfter = holdFor(key).promise;
    const last = JSON.stringify(request.messages.at(-1)?.content);
    if (last.includes('tool_result')) return { kind: 'message', blocks: [{ type: 'text', text: 'Done.' }], endAfter };
    return { kind: 'message', blocks: [{ type: 'tool_use', name: 'Read', input: { file_path: 'note.txt' } }], endAfter };
  };

  const startWorker = (): WorkerProcess => {
    const box = makeSandbox({ 'note.txt': 'the note\n' });
    const child = spawn(process.execPath, [CLI, 'worker', '--session-store', url, '--queue', url, '--concurrency', '1'], {
      cwd: box.cwd,
      env: {
        PATH: process.env['PATH'] ?? '', HOME: box.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.baseURL,
        RXAGENT_JOB_LEASE_SECONDS: String(LEASE_SECONDS), RXAGENT_SESSION_LEASE_MS: String(LEASE_SECONDS * 1000),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const worker = { child, exited: new Promise<number | null>((r) => child.once('exit', (code) => r(code))), stderr: () => stderr };
    workers.push(worker);
    return worker;
  };
  const requestsFor = (prompt: string) => server.requests.filter((r) => JSON.stringify(r.body?.messages[0]?.content).includes(prompt));

  beforeAll(async () => {
    assertBuilt();
    cluster = await startPgCluster();
    url = await cluster.createDatabase('stopping');
    queue = await openRunQueue({ url, leaseSeconds: LEASE_SECONDS });
    server = await startScriptedServer({ script: answer });
  });
  afterAll(async () => {
    for (const g of holds.values()) g.open();
    for (const w of workers) w.child.kill('SIGKILL');
    await Promise.allSettled(workers.map((w) => w.exited));
    await queue?.stop();
    await server?.close();
    await cluster?.stop();
    removeSandboxes();
  });

  test('first SIGTERM: the running job finishes and the worker exits 0 without taking the next one', async () => {
    const first = holdFor('graceful one');
    holdFor('graceful two');
    const worker = startWorker();
    const running = await queue.submit({ args: ['graceful one', '--output-format', 'json'], sessionId: crypto.randomUUID() });
    await eventually(() => requestsFor('graceful one').length === 1, { timeoutMs: 90_000, what: 'the first job asked the model' });
    const waiting = await queue.submit({ args: ['graceful two', '--output-format', 'json'], sessionId: crypto.randomUUID() });
    worker.child.kill('SIGTERM');
    first.open();
    expect(await worker.exited).toBe(0);
    const done = await queue.job(running);
    expect(done?.state).toBe('completed');
    expect(JSON.parse(done!.output!.resultLine!)).toMatchObject({ subtype: 'success', result: 'Done.' });
    // The second job was never taken: no request for it, still waiting in the queue.
    expect(requestsFor('graceful two')).toHaveLength(0);
    expect((await queue.job(waiting))?.state).toBe('created');
  });

  test('second SIGTERM: the running job is handed back, another worker resumes it; one result, valid requests', async () => {
    const held = holdFor('hand me back');
    // The graceful test's waiting job (when it ran first) goes through at once, whoever takes it.
    holdFor('graceful two').open();
    const doomed = startWorker();
    const jobId = await queue.submit({ args: ['hand me back', '--output-format', 'json'], sessionId: crypto.randomUUID() });
    // It ran its Read and waits for the model's second answer: the transcript holds the first.
    await eventually(() => requestsFor('hand me back').length === 2, { timeoutMs: 90_000, what: 'the job reached its second request' });
    doomed.child.kill('SIGTERM');
    // Signals of one kind do not queue: the second is sent once the first was taken.
    await eventually(() => doomed.stderr().includes('rxagent worker: stopping: no new runs'), { timeoutMs: 30_000, what: 'the first SIGTERM was taken' });
    doomed.child.kill('SIGTERM');
    expect(await doomed.exited).toBe(0);
    expect(requestsFor('hand me back')[1]!.closedByClient).toBe(true);

    held.open();
    const rescuer = startWorker();
    const ended = await eventually(async () => {
      const job = await queue.job(jobId);
      return job?.state === 'completed' ? job : undefined;
    }, { timeoutMs: 180_000, everyMs: 250, what: 'the handed-back job completed elsewhere' });
    expect(ended.retryCount).toBeGreaterThanOrEqual(1);
    expect(JSON.parse(ended.output!.resultLine!)).toMatchObject({ subtype: 'success', result: 'Done.' });
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    try {
      const { rows } = await db.query(`SELECT job_id FROM rxagent.job_runs WHERE result IS NOT NULL AND job_id = $1`, [jobId]);
      expect(rows).toHaveLength(1);
    } finally {
      await db.end();
    }
    const mine = requestsFor('hand me back');
    expect(mine.every((r) => r.validationErrors.length === 0)).toBe(true);
    // The resumed run did not ask again for the answer the transcript held (the Read call).
    const answered = mine.filter((r) => !r.closedByClient).map((r) => JSON.stringify(r.body?.messages));
    expect(new Set(answered).size).toBe(answered.length);
    // Left running, it would take the other test's jobs in a shuffled order.
    rescuer.child.kill('SIGTERM');
    expect(await rescuer.exited).toBe(0);
  });
});
