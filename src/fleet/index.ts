/**
 * `rxagent/fleet`: running agents on more than one machine. Sessions in PostgreSQL (a drop-in
 * `SessionStore`, so `startSession` / `resume` / `continueLatest` / `fork` work on it unchanged),
 * runs as jobs on a pg-boss queue (`openRunQueue`, `startWorker`), and OpenTelemetry spans from a
 * run's events (`traceAgentRun`). A sub-path of its own: the root import never loads the database
 * driver or the queue.
 */
export { createPgSessionStore, DEFAULT_LEASE_MS, type PgSessionStore, type PgSessionStoreOptions } from './pgSessionStore.js';
export { SCHEMA_VERSION } from './pgSchema.js';
export { JobNotFoundError, SessionLeaseHeldError, SessionStoreUnavailableError } from './errors.js';
export { openRunQueue, RUN_QUEUE, type RunQueue, type RunQueueOptions, type RunJobData, type RunJobOutput, type JobView } from './queue/runQueue.js';
export { startWorker, type Worker, type WorkerOptions, type WorkerJobEvent } from './queue/worker.js';
export { waitForJob } from './queue/waitForJob.js';
export { JobHandedBackError, JobResultLostError } from './queue/jobErrors.js';
export { traceAgentRun, type TraceOptions } from './tracing/traceAgentRun.js';
export { GEN_AI, RXAGENT as RXAGENT_SPAN_ATTRIBUTES } from './tracing/genAiAttributes.js';
