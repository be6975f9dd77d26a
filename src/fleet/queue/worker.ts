/**
 * A worker: takes runs from the queue, at most `concurrency` at a time, and runs each in this
 * process (runJob.ts). While a run goes on its job is heartbeated, so it stays this worker's; if
 * the worker dies the heartbeat stops and the job expires within the lease and is retried.
 *
 * Stopping: `stop()` (the first SIGTERM) takes no new jobs and lets the running ones finish;
 * `handBack()` (a second SIGTERM) aborts them and fails their jobs, which the queue retries on
 * another worker from the transcripts kept so far.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { migrate } from '../pgSchema.js';
import { runJob, type RunJobContext } from './runJob.js';
import type { FetchedJob, RunJobOutput, RunQueue } from './runQueue.js';

export interface WorkerOptions {
  readonly queue: RunQueue;
  readonly sessionStoreUrl: string;
  readonly concurrency: number;
  readonly leaseSeconds: number;
  readonly env: RunJobContext['env'];
  readonly cwd: string;
  readonly homeDir: string;
  readonly onWarning: (message: string) => void;
  /** How often an idle worker asks the queue for work (default 500 ms). */
  readonly pollMs?: number;
  /** Told when a job starts and ends (the command logs it; tests wait on it). */
  readonly onJob?: (event: WorkerJobEvent) => void;
}

export type WorkerJobEvent =
  | { readonly type: 'started'; readonly jobId: string; readonly retryCount: number }
  | { readonly type: 'completed'; readonly jobId: string; readonly exitCode: number }
  | { readonly type: 'failed'; readonly jobId: string; readonly error: string };

export interface Worker {
  /** Resolves once the worker stopped and every run it took has ended. */
  readonly done: Promise<void>;
  stop(): void;
  handBack(): void;
}

export async function startWorker(options: WorkerOptions): Promise<Worker> {
  const db = new pg.Pool({ connectionString: options.sessionStoreUrl, max: 2, connectionTimeoutMillis: 10_000 });
  db.on('error', (error) => options.onWarning(`session store: ${error.message}`));
  await migrate(db);
  const stopping = new AbortController();
  const handingBack = new AbortController();
  const running = new Map<string, Promise<void>>();
  let wake: (() => void) | undefined;

  const runOne = async (job: FetchedJob): Promise<void> => {
    options.onJob?.({ type: 'started', jobId: job.id, retryCount: job.retryCount });
    const heartbeat = setInterval(() => void options.queue.heartbeat(job.id).catch(() => undefined), (options.leaseSeconds * 1000) / 3);
    try {
      const result = await runJob(job.id, job.data, { ...options, db, signal: handingBack.signal });
      const output: RunJobOutput = { resultLine: result.resultLine, exitCode: result.exitCode };
      await options.queue.complete(job.id, output);
      options.onJob?.({ type: 'completed', jobId: job.id, exitCode: result.exitCode });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      await options.queue.fail(job.id, { exitCode: 1, error: message }).catch(() => undefined);
      options.onJob?.({ type: 'failed', jobId: job.id, error: message });
    } finally {
      clearInterval(heartbeat);
    }
  };

  const loop = async (): Promise<void> => {
    while (!stopping.signal.aborted) {
      const free = options.concurrency - running.size;
      const jobs = free > 0 ? await options.queue.fetch(free).catch((error: unknown) => {
        options.onWarning(`queue: ${error instanceof Error ? error.message : String(error)}`);
        return [];
      }) : [];
      for (const job of jobs) {
        const task = runOne(job).finally(() => {
          running.delete(job.id);
          wake?.();
        });
        running.set(job.id, task);
      }
      if (jobs.length > 0 && running.size < options.concurrency) continue;
      // Idle or full: wait for a slot to free, the poll interval, or stop.
      await new Promise<void>((resolveWait) => {
        wake = resolveWait;
        sleep(options.pollMs ?? 500, undefined, { signal: stopping.signal }).then(resolveWait, resolveWait);
      });
      wake = undefined;
    }
    await Promise.allSettled(running.values());
    await db.end().catch(() => undefined);
  };

  return {
    done: loop(),
    stop: () => stopping.abort(),
    handBack: () => {
      stopping.abort();
      handingBack.abort();
    },
  };
}
