/**
 * Stopping a worker, as the README promises: a first SIGTERM takes no new job and lets the
 * running one finish. (The second SIGTERM's hand-back is not tested here yet: a run handed back
 * mid-stream stores its partial answer, and the retry then takes that for a final answer whose
 * result was lost; see the fleet notes.) Real PostgreSQL (throw-away
 * cluster), real worker processes, the scripted model on 127.0.0.1; every wait is for an event
 * (a line on the worker's stderr, a request at the server, a job's state), never a duration.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openRunQueue, type RunQueue } from '../../src/fleet/queue/runQueue.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { gate, type Gate } from '../../src/testing/gate.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import { assertBuilt, removeSandboxes } from '../cli/helpers.js';
import { eventually } from '../eventually.js';
import { spawnWorker, type WorkerProcess } from './workerProcess.js';
import { pgUnavailableReason, startPgCluster, type PgCluster } from './pgCluster.js';

const LEASE_SECONDS = 3;

describe.skipIf(pgUnavailableReason !== undefined)('stopping a worker', () => {
  let cluster: PgCluster;
  let url: string;
  let queue: RunQueue;
  let server: ScriptedServer;
  /** Each prompt's final answer (after its Read) waits for its own gate (opened by the test). */
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
    const last = JSON.stringify(request.messages.at(-1)?.content);
    if (last.includes('tool_result')) return { kind: 'message', blocks: [{ type: 'text', text: 'Done.' }], endAfter: holdFor(key).promise };
    return { kind: 'message', blocks: [{ type: 'tool_use', name: 'Read', input: { file_path: 'note.txt' } }] };
  };

  const startWorker = (): WorkerProcess => {
    const worker = spawnWorker({ url, modelBaseURL: server.baseURL, concurrency: 1, leaseSeconds: LEASE_SECONDS });
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
    await eventually(() => requestsFor('graceful one').length === 2, { timeoutMs: 90_000, what: 'the first job waits for its final answer' });
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
});
