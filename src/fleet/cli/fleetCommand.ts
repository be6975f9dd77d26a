/**
 * `rxagent worker | submit | result`: runs as jobs on a queue (pg-boss in PostgreSQL).
 *
 *   rxagent worker --session-store <url> --queue <url> [--concurrency N]
 *   rxagent submit --queue <url> [--session-id <id>] [print-mode options] <prompt>   → the job id
 *   rxagent result --queue <url> <job-id> [--wait]                                   → the result JSON
 *
 * Exit status: 0 on success (for `result`: the run succeeded), 1 on a failure (the run's error
 * result, an unknown job, an unfinished job without --wait, an unreachable database), 2 on a usage error.
 */
import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { parseArgs as parseNodeArgs } from 'node:util';
import { parseCliArgs, UsageError } from '../../cli/args.js';
import { packageVersion } from '../../cli/version.js';
import { assertValidSessionId } from '../../session/paths.js';
import { JobNotFoundError } from '../errors.js';
import { DEFAULT_JOB_LEASE_SECONDS, openRunQueue, type RunQueueOptions } from '../queue/runQueue.js';
import { waitForJob } from '../queue/waitForJob.js';
import { startWorker } from '../queue/worker.js';
import { NO_TELEMETRY, telemetryConfigFromEnv } from '../tracing/telemetryConfig.js';

export interface FleetIO {
  writeOut(text: string): void;
  writeErr(text: string): void;
}

export type FleetCommand = 'worker' | 'submit' | 'result';

export function isFleetCommand(word: string | undefined): word is FleetCommand {
  return word === 'worker' || word === 'submit' || word === 'result';
}

/** `RXAGENT_JOB_LEASE_SECONDS`: a job without a heartbeat for this long is retried (default 30). */
function queueOptions(url: string, env: NodeJS.ProcessEnv): RunQueueOptions {
  const raw = env['RXAGENT_JOB_LEASE_SECONDS'];
  if (raw === undefined || raw === '') return { url };
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 60) throw new UsageError(`RXAGENT_JOB_LEASE_SECONDS must be a whole number of seconds from 1 to 60 (got '${raw}')`);
  return { url, leaseSeconds: n, maintenanceIntervalSeconds: Math.max(1, Math.floor(n / 2)) };
}

/** node:util's parser's errors (an unknown flag, a missing value) as usage errors. */
function asUsage<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

function required(value: string | undefined, flag: string, command: FleetCommand): string {
  if (value === undefined || value === '') throw new UsageError(`rxagent ${command} needs ${flag} <url>`);
  return value;
}

export async function runFleetCommand(command: FleetCommand, argv: readonly string[], io: FleetIO): Promise<number> {
  switch (command) {
    case 'submit':
      return submit(argv, io);
    case 'result':
      return result(argv, io);
    case 'worker':
      return worker(argv, io);
  }
}

/** Takes `--queue` and `--session-id` out; everything else is the print-mode run's own arguments. */
async function submit(argv: readonly string[], io: FleetIO): Promise<number> {
  const rest: string[] = [];
  let queueUrl: string | undefined;
  let sessionId: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [name, inline] = arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    if (name === '--queue' || name === '--session-id') {
      const value = inline ?? argv[++i];
      if (value === undefined) throw new UsageError(`${name} needs a value`);
      if (name === '--queue') queueUrl = value;
      else sessionId = value;
    } else rest.push(arg);
  }
  const url = required(queueUrl, '--queue', 'submit');
  if (sessionId !== undefined) assertValidSessionId(sessionId);
  // Checked now, so a typo fails here and not later on some worker.
  const options = parseCliArgs(['-p', ...rest]);
  if (options.prompt === undefined || options.prompt.trim() === '') throw new UsageError('rxagent submit needs a prompt');
  if (options.resume !== undefined || options.continue) throw new UsageError('rxagent submit: use --session-id <id> to run in an existing session');
  const runSessionId = sessionId ?? randomUUID();
  const telemetryConfig = telemetryConfigFromEnv(process.env);
  for (const warning of telemetryConfig.warnings) io.writeErr(`rxagent: ${warning}\n`);
  const telemetry =
    telemetryConfig.kind === 'off'
      ? NO_TELEMETRY
      : await (await import('../tracing/commandTelemetry.js')).startCommandTelemetry(telemetryConfig, { version: packageVersion(), traceparent: process.env['TRACEPARENT'] });
  const handOff = telemetry.handOff('submit_job rxagent', { 'gen_ai.conversation.id': runSessionId });
  const queue = await openRunQueue(queueOptions(url, process.env));
  try {
    const id = await queue.submit({ args: rest, sessionId: runSessionId, ...(handOff.traceparent ? { traceparent: handOff.traceparent } : {}) });
    io.writeOut(`${id}\n`);
    return 0;
  } finally {
    handOff.end();
    await Promise.allSettled([queue.stop(), telemetry.shutdown()]);
  }
}

async function result(argv: readonly string[], io: FleetIO): Promise<number> {
  const { values, positionals } = asUsage(() =>
    parseNodeArgs({ args: [...argv], options: { queue: { type: 'string' }, wait: { type: 'boolean' } }, allowPositionals: true, strict: true }),
  );
  const url = required(values.queue, '--queue', 'result');
  if (positionals.length !== 1) throw new UsageError('rxagent result needs one job id');
  const jobId = positionals[0]!;
  const queue = await openRunQueue(queueOptions(url, process.env));
  try {
    const job = await waitForJob(queue, jobId, { wait: values.wait === true });
    if (!job) throw new JobNotFoundError(jobId, queue.where);
    if (job.output?.resultLine !== undefined && (job.state === 'completed' || job.state === 'failed')) {
      io.writeOut(`${job.output.resultLine}\n`);
      return job.output.exitCode === 0 ? 0 : 1;
    }
    if (job.state === 'failed' || job.state === 'cancelled') {
      io.writeErr(`rxagent: job ${jobId} ${job.state} without a result${job.output?.error ? `: ${job.output.error}` : ''}\n`);
    } else io.writeErr(`rxagent: job ${jobId} has not ended yet (${job.state}); use --wait to wait for it\n`);
    return 1;
  } finally {
    await queue.stop();
  }
}

async function worker(argv: readonly string[], io: FleetIO): Promise<number> {
  const { values } = asUsage(() =>
    parseNodeArgs({
      args: [...argv],
      options: { queue: { type: 'string' }, 'session-store': { type: 'string' }, concurrency: { type: 'string' } },
      strict: true,
    }),
  );
  const queueUrl = required(values.queue, '--queue', 'worker');
  const storeUrl = required(values['session-store'] ?? process.env['RXAGENT_SESSION_STORE'], '--session-store', 'worker');
  const concurrency = Number(values.concurrency ?? '1');
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 256) throw new UsageError(`--concurrency must be a whole number from 1 to 256 (got '${values.concurrency}')`);
  const options = queueOptions(queueUrl, process.env);
  const queue = await openRunQueue(options, { supervise: true });
  const running = await startWorker({
    queue,
    sessionStoreUrl: storeUrl,
    concurrency,
    leaseSeconds: options.leaseSeconds ?? DEFAULT_JOB_LEASE_SECONDS,
    env: process.env,
    cwd: process.cwd(),
    homeDir: homedir(),
    onWarning: (message) => io.writeErr(`rxagent worker: ${message}\n`),
    onJob: (event) => io.writeErr(`rxagent worker: job ${event.jobId} ${event.type}${event.type === 'started' ? ` (retry ${event.retryCount})` : event.type === 'completed' ? ` (exit ${event.exitCode})` : `: ${event.error}`}\n`),
  }).catch(async (error: unknown) => {
    await queue.stop();
    throw error;
  });
  // First SIGTERM/SIGINT: take nothing new, finish what runs. Second: hand the runs back.
  let signals = 0;
  // Each step is said on stderr: an operator (and a test) knows which one was taken.
  const onSignal = () => {
    if (++signals === 1) {
      io.writeErr('rxagent worker: stopping: no new runs; the running ones finish (signal again to hand them back to the queue)\n');
      running.stop();
    } else {
      io.writeErr('rxagent worker: handing the running runs back to the queue\n');
      running.handBack();
    }
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  io.writeErr(`rxagent worker: taking runs from ${queue.where} (concurrency ${concurrency})\n`);
  try {
    await running.done;
  } finally {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    await queue.stop();
  }
  return 0;
}
