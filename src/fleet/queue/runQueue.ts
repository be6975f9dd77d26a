/**
 * The queue of runs, on pg-boss 10 (jobs in PostgreSQL): `submit` enqueues a print-mode run,
 * `jobState` reads where it is, and the worker side takes, heartbeats, completes or fails jobs.
 *
 * Why not pg-boss's `work()`: it rejects a handler that outlives the job's expiry, and a short
 * expiry is what makes a dead worker's job come back quickly. So the worker fetches jobs itself
 * and extends a running job's expiry on a heartbeat instead; a job whose worker stopped
 * heartbeating (SIGKILL, a partition) expires within `leaseSeconds` and pg-boss retries it.
 */
import { randomUUID } from 'node:crypto';
import PgBoss from 'pg-boss';
import { describeUrl, SessionStoreUnavailableError } from '../errors.js';

/** The queue all runs go through. */
export const RUN_QUEUE = 'rxagent-runs';

/** What a job carries: the print-mode arguments (options and prompt) and the session it runs in. */
export interface RunJobData {
  readonly args: readonly string[];
  readonly sessionId: string;
  /** The submitter's W3C trace context, when it traces: the worker's run span continues that trace. */
  readonly traceparent?: string;
}

/** What a finished job keeps as its pg-boss output. */
export interface RunJobOutput {
  /** The JSON of `--output-format json`. */
  readonly resultLine?: string;
  readonly exitCode: number;
  /** Why there is no result line (the run could not be started). */
  readonly error?: string;
}

export interface RunQueueOptions {
  readonly url: string;
  /** How long a job may go without a heartbeat before it is retried elsewhere (default 30 s). */
  readonly leaseSeconds?: number;
  /** Retries of a job whose worker died or whose run could not start (default 3). */
  readonly retryLimit?: number;
  /** How often pg-boss looks for expired jobs (default 2 s; pg-boss's own default is minutes). */
  readonly maintenanceIntervalSeconds?: number;
}

export type JobState = 'created' | 'retry' | 'active' | 'completed' | 'cancelled' | 'failed';

export interface JobView {
  readonly id: string;
  readonly state: JobState;
  readonly retryCount: number;
  readonly data: RunJobData;
  readonly output: RunJobOutput | undefined;
  readonly startedOn: Date | undefined;
}

export interface FetchedJob {
  readonly id: string;
  readonly data: RunJobData;
  readonly retryCount: number;
}

export interface RunQueue {
  readonly where: string;
  submit(data: RunJobData): Promise<string>;
  job(id: string): Promise<JobView | undefined>;
  /** Takes up to `count` jobs (marking them active). */
  fetch(count: number): Promise<FetchedJob[]>;
  /** Pushes the job's expiry `leaseSeconds` past now; false when it is no longer active. */
  heartbeat(id: string): Promise<boolean>;
  complete(id: string, output: RunJobOutput): Promise<void>;
  fail(id: string, output: RunJobOutput): Promise<void>;
  stop(): Promise<void>;
}

export const DEFAULT_JOB_LEASE_SECONDS = 30;

/** Connects, installs or migrates pg-boss's schema, creates the queue. Rejects with `SessionStoreUnavailableError`. */
export async function openRunQueue(options: RunQueueOptions, { supervise = false }: { supervise?: boolean } = {}): Promise<RunQueue> {
  const where = describeUrl(options.url);
  const leaseSeconds = options.leaseSeconds ?? DEFAULT_JOB_LEASE_SECONDS;
  const boss = new PgBoss({
    connectionString: options.url,
    max: 4,
    // Only workers look for expired jobs; a `submit` or `result` does its one thing and leaves.
    supervise,
    schedule: false,
    maintenanceIntervalSeconds: options.maintenanceIntervalSeconds ?? 2,
  });
  let lastError: Error | undefined;
  boss.on('error', (error) => void (lastError = error));
  try {
    await boss.start();
    await boss.createQueue(RUN_QUEUE, { name: RUN_QUEUE, retryLimit: options.retryLimit ?? 3, expireInSeconds: leaseSeconds, retryDelay: 0 });
  } catch (error) {
    await boss.stop({ graceful: false, wait: true }).catch(() => undefined);
    throw new SessionStoreUnavailableError(where, lastError ?? error);
  }
  const db = boss.getDb();
  return {
    where,
    async submit(data) {
      const id = await boss.send(RUN_QUEUE, { ...data }, { id: randomUUID() });
      if (id === null) throw new Error(`the queue ${where} refused the job`);
      return id;
    },
    async job(id) {
      const job = await boss.getJobById<RunJobData>(RUN_QUEUE, id, { includeArchive: true });
      if (!job) return undefined;
      return {
        id: job.id,
        state: job.state,
        retryCount: job.retryCount,
        data: job.data,
        output: (job.output ?? undefined) as RunJobOutput | undefined,
        startedOn: job.startedOn ?? undefined,
      };
    },
    async fetch(count) {
      const jobs = (await boss.fetch<RunJobData>(RUN_QUEUE, { batchSize: count, includeMetadata: true })) ?? [];
      return jobs.map((job) => ({ id: job.id, data: job.data, retryCount: job.retryCount }));
    },
    async heartbeat(id) {
      // pg-boss 10 has no heartbeat of its own: a job expires at started_on + expire_in.
      const { rows } = await db.executeSql(
        `UPDATE pgboss.job SET expire_in = (now() - started_on) + $3 * interval '1 second'
          WHERE name = $1 AND id = $2 AND state = 'active' RETURNING id`,
        [RUN_QUEUE, id, leaseSeconds],
      );
      return rows.length === 1;
    },
    async complete(id, output) {
      await boss.complete(RUN_QUEUE, id, { ...output });
    },
    async fail(id, output) {
      await boss.fail(RUN_QUEUE, id, { ...output });
    },
    stop: () => boss.stop({ graceful: false, wait: true, close: true }),
  };
}
