/**
 * `result --wait`: polls the job until it ended (completed, failed with no retry left, cancelled).
 * Polling, not LISTEN/NOTIFY: pg-boss 10 sends no notification when a job ends, and a result
 * check every half second costs the database nothing.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobView, RunQueue } from './runQueue.js';

const ENDED = new Set(['completed', 'failed', 'cancelled']);

export async function waitForJob(queue: RunQueue, jobId: string, { wait, pollMs = 500 }: { wait: boolean; pollMs?: number }): Promise<JobView | undefined> {
  for (;;) {
    const job = await queue.job(jobId);
    if (!job || !wait || ENDED.has(job.state)) return job;
    await sleep(pollMs);
  }
}
