/**
 * Stopping a worker, as the README promises: a first SIGTERM takes no new job and lets the
 * running one finish; a second hands the running runs back, and another worker finishes them
 * (an answer cut off mid-stream is retracted and asked again). Real PostgreSQL (throw-away
 * cluster), real worker processes, the scripted model on 127.0.0.1; every wait is for an event
 * (a line on the worker's stderr, a request at the server, a job's state), never a duration.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { openRunQueue, type RunQueue } from '../../src/fleet/queue/runQueue.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { gate, type Gate } from '../../src/testing/gate.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import { readSessionRecords } from '../../src/fleet/pgSessionStore.js';
import { assertBuilt, removeSandboxes } from '../cli/helpers.js';
import { sseEvent } from '../transport/sseFixtures.js';
import { eventually } from '../eventually.js';
import { spawnWorker, type WorkerProcess } from './workerProcess.js';
import { pgUnavailableReason, startPgCluster, type PgCluster } from './pgCluster.js';

const LEASE_SECONDS = 3;
const HANDED_BACK = 'handed back mid-stream';
/** The log line that says the worker's loop has read everything before it (the unknown event comes last). */
const MARKER_SEEN = 'ignored unknown stream event type "test_marker"';

/** The start of an answer, then an event the decoder only logs, then nothing: the stream stays open. */
const halfAnAnswer: ScriptedResponse = {
  kind: 'raw',
  holdOpen: true,
  chunks: [
    sseEvent({ type: 'message_start', message: { id: 'msg_half', type: 'message', role: 'assistant', model: 'claude-test', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } } }),
    sseEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    sseEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Half an ans' } }),
    sseEvent({ type: 'content_block_stop', index: 0 }),
    sseEvent({ type: 'test_marker' }),
  ],
};

describe.skipIf(pgUnavailableReason !== undefined)('stopping a worker', () => {
  let cluster: PgCluster;
  const queues: RunQueue[] = [];
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
    if (prompt.includes(HANDED_BACK)) return requestsFor(HANDED_BACK).length === 1 ? halfAnAnswer : { kind: 'message', blocks: [{ type: 'text', text: 'Whole answer.' }] };
    const key = [...holds.keys()].find((k) => prompt.includes(k)) ?? '';
    const last = JSON.stringify(request.messages.at(-1)?.content);
    if (last.includes('tool_result')) return { kind: 'message', blocks: [{ type: 'text', text: 'Done.' }], endAfter: holdFor(key).promise };
    return { kind: 'message', blocks: [{ type: 'tool_use', name: 'Read', input: { file_path: 'note.txt' } }] };
  };

  /** Each test has its own database: a job one test leaves waiting is never another's to take. */
  const openDatabase = async (name: string): Promise<{ url: string; queue: RunQueue }> => {
    const url = await cluster.createDatabase(name);
    const queue = await openRunQueue({ url, leaseSeconds: LEASE_SECONDS });
    queues.push(queue);
    return { url, queue };
  };
  const startWorker = (url: string): WorkerProcess => {
    const worker = spawnWorker({ url, modelBaseURL: server.baseURL, concurrency: 1, leaseSeconds: LEASE_SECONDS });
    workers.push(worker);
    return worker;
  };
  const requestsFor = (prompt: string) => server.requests.filter((r) => JSON.stringify(r.body?.messages[0]?.content).includes(prompt));

  beforeAll(async () => {
    assertBuilt();
    cluster = await startPgCluster();
    server = await startScriptedServer({ script: answer });
  });
  afterAll(async () => {
    for (const g of holds.values()) g.open();
    for (const w of workers) w.child.kill('SIGKILL');
    await Promise.allSettled(workers.map((w) => w.exited));
    await Promise.allSettled(queues.map((q) => q.stop()));
    await server?.close();
    await cluster?.stop();
    removeSandboxes();
  });

  test('first SIGTERM: the running job finishes and the worker exits 0 without taking the next one', async () => {
    const first = holdFor('graceful one');
    holdFor('graceful two');
    const { url, queue } = await openDatabase('stopping_first');
    const worker = startWorker(url);
    const running = await queue.submit({ args: ['graceful one', '--output-format', 'json'], sessionId: crypto.randomUUID() });
    await eventually(() => requestsFor('graceful one').length === 2, { timeoutMs: 90_000, what: 'the first job waits for its final answer' });
    const waiting = await queue.submit({ args: ['graceful two', '--output-format', 'json'], sessionId: crypto.randomUUID() });
    worker.child.kill('SIGTERM');
    // Taken before the first job may end: else the worker could take the second job first.
    await eventually(() => worker.stderr().includes('rxagent worker: stopping:'), { timeoutMs: 30_000, what: 'the SIGTERM taken' });
    first.open();
    expect(await worker.exited).toBe(0);
    const done = await queue.job(running);
    expect(done?.state).toBe('completed');
    expect(JSON.parse(done!.output!.resultLine!)).toMatchObject({ subtype: 'success', result: 'Done.' });
    // The second job was never taken: no request for it, still waiting in the queue.
    expect(requestsFor('graceful two')).toHaveLength(0);
    expect((await queue.job(waiting))?.state).toBe('created');
  });

  test('second SIGTERM while the model streams: the run is handed back, its half answer retracted, and another worker gets one whole answer', async () => {
    const debugFile = join(mkdtempSync(join(tmpdir(), 'rxagent-handback-')), 'job.log');
    const sessionId = crypto.randomUUID();
    const { url, queue } = await openDatabase('stopping_second');
    const first = startWorker(url);
    const job = await queue.submit({ args: [HANDED_BACK, '--output-format', 'json', '--debug-file', debugFile], sessionId });
    const logged = () => {
      try {
        return readFileSync(debugFile, 'utf8');
      } catch {
        return '';
      }
    };
    // The half answer has been read when the event after it is logged.
    await eventually(() => logged().includes(MARKER_SEEN), { timeoutMs: 90_000, what: 'the worker read the half answer' });
    first.child.kill('SIGTERM');
    await eventually(() => first.stderr().includes('rxagent worker: stopping:'), { timeoutMs: 30_000, what: 'the first SIGTERM taken' });
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.stderr()).toContain('handing the running runs back');

    const second = startWorker(url);
    const done = await eventually(async () => {
      const state = await queue.job(job);
      return state?.state === 'completed' ? state : undefined;
    }, { timeoutMs: 90_000, what: 'the retried job completed' });
    expect(second.started.has(job)).toBe(true);
    expect(JSON.parse(done.output!.resultLine!)).toMatchObject({ subtype: 'success', result: 'Whole answer.', session_id: sessionId });
    // The retry asked again from the prompt: a valid request without the half answer.
    const [, retry] = requestsFor(HANDED_BACK);
    expect(retry?.validationErrors).toEqual([]);
    expect(retry?.body?.messages.map((m) => m.role)).toEqual(['user']);
    expect(JSON.stringify(retry?.body?.messages)).not.toContain('Half an ans');
    // The transcript keeps the half answer, tombstoned, and the whole one after it.
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const { records } = await readSessionRecords(pool, sessionId);
      const half = records.find((r) => r.type === 'assistant' && JSON.stringify(r.message.content).includes('Half an ans'));
      expect(half).toMatchObject({ stopReason: null });
      expect(records.filter((r) => r.type === 'tombstone').map((r) => (r.type === 'tombstone' ? r.uuids : []))).toEqual([[half!.uuid]]);
      expect(records.filter((r) => r.type === 'assistant').map((r) => JSON.stringify(r.message.content))).toEqual([
        JSON.stringify([{ type: 'text', text: 'Half an ans' }]),
        JSON.stringify([{ type: 'text', text: 'Whole answer.' }]),
      ]);
    } finally {
      await pool.end();
    }
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
