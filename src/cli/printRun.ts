/**
 * `rxagent -p`: one turn (or, with `--input-format stream-json`, a conversation with a host over
 * stdin/stdout), printed as text, json or stream-json. Loaded by main.ts only for these modes.
 */
import { randomUUID } from 'node:crypto';
import { homedir } from 'node:os';
import { UsageError, type CliOptions } from './args.js';
import { buildRun, type PreparedRun, type RunEnvironment } from './buildRun.js';
import { createRunMapper, createSessionTotals } from './output/runMapper.js';
import { runPrintMode } from './printMode.js';
import { readStdin, StdinTooLarge } from './readStdin.js';
import { packageVersion } from './version.js';
import { openDebugLog, type DebugLog } from './debugLog.js';
import { hookLine, printsHookEvent } from './output/hookLines.js';
import { writeErr, writeOut } from './stdio.js';

/** The run's deadline when `-p` has no `--timeout` (documented in --help). */
export const DEFAULT_PRINT_TIMEOUT_MS = 60 * 60 * 1000;

/**
 * The prompt of `-p`: the argument, then the text piped on stdin (as Claude Code joins them:
 * `git diff | rxagent -p "Review this"`). Empty or blank in all: a usage error.
 */
async function promptFor(options: CliOptions): Promise<string> {
  const given = options.prompt !== undefined && options.prompt.trim() !== '' ? options.prompt : undefined;
  if (process.stdin.isTTY) {
    if (given === undefined) throw new UsageError('-p needs a prompt: give it as an argument or on stdin');
    return given;
  }
  const piped = (
    await readStdin().catch((error: unknown) => {
      throw error instanceof StdinTooLarge ? new UsageError(error.message) : error;
    })
  ).trim();
  if (given === undefined && piped === '') {
    throw new UsageError(`-p needs a prompt: give it as an argument or on stdin (${options.prompt === undefined ? 'stdin was empty' : 'the prompt is blank'})`);
  }
  return [given, piped].filter((part) => part !== undefined && part !== '').join('\n\n');
}

/** What every print-mode run is built with, beyond the options. */
function printEnvironment(options: CliOptions, debug: DebugLog | undefined, extra: Partial<RunEnvironment>): RunEnvironment {
  const printsHooks = options.outputFormat === 'stream-json';
  return {
    env: process.env,
    cwd: process.cwd(),
    homeDir: homedir(),
    platform: process.platform,
    interactive: false,
    onWarning: (message) => {
      debug?.write(`warning: ${message}`);
      writeErr(`rxagent: warning: ${message}\n`);
    },
    ...(printsHooks || debug
      ? {
          onHookEvent: (event) => {
            debug?.hookEvent(event);
            if (printsHooks && printsHookEvent(event, options.includeHookEvents)) writeOut(JSON.stringify(hookLine(event, randomUUID())) + '\n');
          },
        }
      : {}),
    ...extra,
  };
}

/** `RXAGENT_HOST_TIMEOUT_MS`: how long a control request to the host may wait (default 5 minutes). */
function hostTimeout(value: string | undefined): { hostTimeoutMs?: number } {
  const n = Number(value);
  return value !== undefined && value !== '' && Number.isFinite(n) && n > 0 ? { hostTimeoutMs: n } : {};
}

/** The SDK sets CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING=true for `enableFileCheckpointing`. */
const isTruthy = (value: string | undefined): boolean => value !== undefined && ['1', 'true', 'yes', 'on'].includes(value.trim().toLowerCase());

/** `--input-format stream-json`: a conversation with a host over stdin/stdout (the Agent SDK). */
async function runStreamJsonInput(options: CliOptions, debug: DebugLog | undefined): Promise<number> {
  const runs: PreparedRun[] = [];
  // Loaded only for this mode (as the interactive view below): `-p` pays for neither at start.
  const { runStreamJson } = await import('./streamInput/runStreamJson.js');
  try {
    return await runStreamJson(
      options,
      async (opts, extra) => {
        const run = await buildRun(opts, printEnvironment(opts, debug, extra));
        runs.push(run);
        return run;
      },
      { stdin: process.stdin, writeOut, writeErr, fileCheckpointing: isTruthy(process.env['CLAUDE_CODE_ENABLE_SDK_FILE_CHECKPOINTING']), ...hostTimeout(process.env['RXAGENT_HOST_TIMEOUT_MS']), ...(debug ? { onEvent: debug.loopEvent } : {}) },
    );
  } finally {
    await Promise.allSettled(runs.map((r) => r.close()));
  }
}

export async function runPrint(options: CliOptions): Promise<number> {
  const debug = openDebugLog(options, writeErr, process.cwd());
  debug?.write(`rxagent ${packageVersion()} ${process.argv.slice(2).map((a) => JSON.stringify(a)).join(' ')}`);
  if (options.inputFormat === 'stream-json') return runStreamJsonInput(options, debug);
  const prompt = await promptFor(options);
  const controller = new AbortController();
  // A first signal aborts the turn (its result is still printed and the transcript kept);
  // a second one leaves at once.
  let signals = 0;
  const onSignal = () => {
    signals += 1;
    if (signals > 1) process.exit(130);
    controller.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // The run's overall deadline ends it like a first signal: the result is still printed, and
  // stderr says why (an "Interrupted." nobody asked for would be a mystery in a CI log).
  const deadlineMs = options.timeoutMs ?? DEFAULT_PRINT_TIMEOUT_MS;
  let deadlinePassed = false;
  const deadline = setTimeout(() => ((deadlinePassed = true), controller.abort()), deadlineMs);
  deadline.unref();
  let mapperRef: ReturnType<typeof createRunMapper> | undefined;
  let run: PreparedRun | undefined;
  try {
    run = await buildRun(options, printEnvironment(options, debug, { onDenial: (denial) => mapperRef?.recordDenial(denial) }));
    // Partial messages are a stream-json feature; other formats ignore the flag (as Claude Code does).
    // A resumed or continued session's result totals start from what its transcript spent, as in
    // stream-json and as Claude Code restores a resumed session's cost (a fork starts at 0).
    const totals = run.spentBefore ? createSessionTotals(run.maxOutputTokens, await run.spentBefore()) : undefined;
    const mapper = createRunMapper(run, { includePartialMessages: options.includePartialMessages && options.outputFormat === 'stream-json', ...(totals ? { totals } : {}) });
    mapperRef = mapper;
    const code = await runPrintMode(options, run, mapper, prompt, controller.signal, { writeOut, writeErr, ...(debug ? { onEvent: debug.loopEvent } : {}) });
    if (deadlinePassed) writeErr(`rxagent: the run passed its deadline of ${deadlineMs / 1000} s (${options.timeoutMs === undefined ? 'the -p default; ' : ''}--timeout sets it)\n`);
    return code;
  } finally {
    clearTimeout(deadline);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await run?.close();
  }
}
