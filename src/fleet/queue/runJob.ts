/**
 * Runs one job in this process: a print-mode run (`--output-format json`) in the job's session,
 * on the worker's session store. A retry (the first worker died) resumes the session from its
 * transcript: when the first attempt already stored the prompt, the loop goes on from the stored
 * history (its cut-off turn repaired on resume) instead of asking the model again what the
 * transcript already holds the answer to; an answer cut off mid-stream is retracted and asked
 * again; a job that already ended returns its stored result.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type pg from 'pg';
import { redact } from '../../errors.js';
import { parseCliArgs, type CliOptions } from '../../cli/args.js';
import { buildRun, describeRun, type PreparedRun, type RunEnvironment } from '../../cli/buildRun.js';
import { createStreamJsonMapper } from '../../cli/output/streamJson.js';
import { openDebugLog } from '../../cli/debugLog.js';
import { runPrintMode } from '../../cli/printMode.js';
import { SessionLeaseHeldError } from '../errors.js';
import { SCHEMA } from '../pgSchema.js';
import { cutOffAnswer } from './cutOffAnswer.js';
import { JobHandedBackError, JobResultLostError } from './jobErrors.js';
import { recordResult, recordStart } from './jobRuns.js';
import type { RunJobData } from './runQueue.js';

/** A lease never lasts longer than this (the store's own bound is far below it). */
const MAX_LEASE_WAIT_MS = 65_000;

export interface RunJobContext {
  readonly sessionStoreUrl: string;
  /** The session database (job progress lives beside the sessions). */
  readonly db: pg.Pool;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly homeDir: string;
  readonly onWarning: (message: string) => void;
  /** Aborted to hand the job back (a second SIGTERM): the run stops and the job is retried elsewhere. */
  readonly signal: AbortSignal;
}

export interface JobResult {
  readonly resultLine: string;
  readonly exitCode: number;
}

/** Runs the job to its result line. Rejects (the job is retried) when the run cannot be had. */
export async function runJob(jobId: string, data: RunJobData, ctx: RunJobContext): Promise<JobResult> {
  const given = parseCliArgs(['-p', ...data.args]);
  if (given.prompt === undefined || given.prompt.trim() === '') throw new Error(`job ${jobId} has no prompt`);
  const exists = (await ctx.db.query(`SELECT 1 FROM ${SCHEMA}.sessions WHERE session_id = $1`, [data.sessionId])).rowCount === 1;
  const options: CliOptions = {
    ...given,
    outputFormat: 'json',
    verbose: false,
    includePartialMessages: false,
    sessionStore: ctx.sessionStoreUrl,
    continue: false,
    forkSession: false,
    resume: exists ? data.sessionId : undefined,
    sessionId: exists ? undefined : data.sessionId,
  };
  const apiKey = ctx.env['ANTHROPIC_API_KEY'];
  // A job's `--debug` / `--debug-file` work as in `-p` (the file is the worker's to open; on
  // stderr the lines join the worker's log).
  const debug = openDebugLog(options, (text) => ctx.onWarning(`job ${jobId}: ${redact(text, apiKey).trimEnd()}`), ctx.cwd);
  const environment: RunEnvironment = {
    env: ctx.env,
    cwd: ctx.cwd,
    homeDir: ctx.homeDir,
    platform: process.platform,
    interactive: false,
    onWarning: (message) => {
      debug?.write(`warning: ${message}`);
      ctx.onWarning(`job ${jobId}: ${message}`);
    },
    ...(debug ? { onHookEvent: debug.hookEvent } : {}),
    ...(data.traceparent ? { traceparent: data.traceparent } : {}),
  };
  let mapperRef: ReturnType<typeof createStreamJsonMapper> | undefined;
  const run = await buildRunOnceFree(options, { ...environment, onDenial: (denial) => mapperRef?.recordDenial(denial) }, ctx.signal);
  try {
    const progress = await recordStart(ctx.db, jobId, data.sessionId, run.history.length);
    if (progress.kind === 'ended') return { resultLine: progress.resultLine, exitCode: progress.exitCode };
    const promptStored = progress.kind === 'started' && run.history.length > progress.historyLength;
    if (promptStored && run.history[run.history.length - 1]?.role !== 'user') await retractCutOffAnswer(run, ctx.db, jobId, data.sessionId);
    const mapper = createStreamJsonMapper(describeRun(run), {
      includePartialMessages: false,
      newUuid: randomUUID,
      now: Date.now,
      structuredOutput: () => run.structuredOutput(),
    });
    mapperRef = mapper;
    let out = '';
    const exitCode = await runPrintMode(options, promptStored ? withoutPrompt(run) : run, mapper, given.prompt, ctx.signal, {
      writeOut: (text) => void (out += redact(text, apiKey)),
      writeErr: (text) => ctx.onWarning(`job ${jobId}: ${redact(text, apiKey).trimEnd()}`),
      ...(debug ? { onEvent: debug.loopEvent } : {}),
    });
    if (ctx.signal.aborted) throw new JobHandedBackError(jobId);
    return await recordResult(ctx.db, jobId, out.trim(), exitCode);
  } finally {
    await run.close();
  }
}

/**
 * A retried job can arrive before the dead worker's session lease ran out (the job's and the
 * session's leases are renewed apart): wait for the lease's own expiry, then take it.
 */
async function buildRunOnceFree(options: CliOptions, environment: RunEnvironment, signal: AbortSignal): Promise<PreparedRun> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await buildRun(options, environment);
    } catch (error) {
      if (!(error instanceof SessionLeaseHeldError) || attempt >= 3) throw error;
      const waitMs = Math.min(MAX_LEASE_WAIT_MS, Math.max(0, error.leaseExpiresAt.getTime() - Date.now()) + 200);
      await sleep(waitMs, undefined, { signal });
    }
  }
}

/**
 * A run handed back while the model streamed left the start of an answer: it is tombstoned (kept
 * in the transcript, out of the history) and the model is asked again from the job's prompt, so the
 * result is one whole answer. A finished answer with no stored result is not asked again.
 */
async function retractCutOffAnswer(run: PreparedRun, db: pg.Pool, jobId: string, sessionId: string): Promise<void> {
  const cut = await cutOffAnswer(db, sessionId);
  if (!cut || !run.transcript) throw new JobResultLostError(jobId, sessionId);
  await run.transcript.append([{ type: 'tombstone', uuids: [cut.uuid], chainId: cut.chainId ?? '', depth: cut.depth ?? 0, timestamp: Date.now() }]);
  run.history = run.history.slice(0, -1);
}

/** The same run, but its turn adds no prompt: the stored history (ending with a user message) is sent as is. */
function withoutPrompt(run: PreparedRun): PreparedRun {
  return Object.create(run, {
    loopOptions: {
      value: (prompt: string, signal: AbortSignal) => {
        const { prompt: _alreadyStored, ...rest } = run.loopOptions(prompt, signal);
        return rest;
      },
    },
  }) as PreparedRun;
}
