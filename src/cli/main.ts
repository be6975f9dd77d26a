#!/usr/bin/env node
/**
 * The `rxagent` command. `-p` runs one turn and prints text, json or stream-json (Claude Code's
 * print mode); without `-p` it is an interactive prompt loop. Exit status: 0 when the turn
 * succeeded, 1 on an error result or a failure to start, 2 on a usage error.
 */
import { randomUUID } from 'node:crypto';
import { setFlagsFromString } from 'node:v8';
import { homedir } from 'node:os';
import { redact, RxAgentError } from '../errors.js';
import { HELP_TEXT, parseCliArgs, UsageError, type CliOptions } from './args.js';
import { buildRun, type PreparedRun, type RunEnvironment } from './buildRun.js';
import { createRunMapper } from './output/runMapper.js';
import { runPrintMode } from './printMode.js';
import { readStdin, StdinTooLarge } from './readStdin.js';
import { packageVersion } from './version.js';
import { openDebugLog, type DebugLog } from './debugLog.js';
import { hookLine, printsHookEvent } from './output/hookLines.js';
import { killAllProcessGroups } from '../tools/builtin/processGroup.js';

/**
 * Every byte we print passes here: the API key is replaced wherever it shows up, even in text a
 * hostile endpoint echoed back as the model's reply or in an error body.
 */
const apiKey = process.env['ANTHROPIC_API_KEY'];
const authToken = process.env['ANTHROPIC_AUTH_TOKEN'];
const scrub = (text: string): string => redact(redact(text, apiKey), authToken);
/**
 * Grep runs the model's regular expressions synchronously: `(a+)+$` against a line of `a`s would
 * backtrack for hours and freeze the whole run (no timeout or abort can interrupt it). V8 can
 * switch such a match to its linear-time engine after excessive backtracking; the command turns
 * that on for itself (a library user decides for their own process). Patterns with lookarounds
 * or backreferences are outside that engine and keep the old behaviour.
 */
setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
/**
 * undici parses HTTP with llhttp compiled to WebAssembly. V8 compiles that module with its
 * baseline compiler at the first request and then again with its optimizing one on a background
 * thread, and node waits for that background work before it exits: 150–400 ms at the end of
 * every `-p` run (issue 20 §3), for parsing a few kilobytes of headers and chunk framing. The
 * command keeps the baseline code only; a library user's process is not affected.
 */
setFlagsFromString('--liftoff-only');

/**
 * Exit paths: whatever ends this process (a normal end, process.exit after a second signal,
 * SIGHUP, a closed stdout), every tool process group still running is killed first. 'exit'
 * handlers run synchronously, and so does process.kill. Sandboxed calls would also die with us
 * (bwrap --die-with-parent); unsandboxed ones would not.
 */
process.on('exit', () => killAllProcessGroups());
// The terminal is gone: nobody reads the rest. Node's default would exit without 'exit' handlers.
process.on('SIGHUP', () => process.exit(129));
/** Set once stdout is closed under us: nothing more is written anywhere. */
let stdoutClosed = false;
// `rxagent -p … | head -1`: the reader left. Print nothing more (not even an error) and leave.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code !== 'EPIPE') throw error;
  stdoutClosed = true;
  process.exit(141);
});

/** The run's deadline when `-p` has no `--timeout` (documented in --help). */
export const DEFAULT_PRINT_TIMEOUT_MS = 60 * 60 * 1000;

const writeOut = (text: string) => void (stdoutClosed || process.stdout.write(scrub(text)));
const writeErr = (text: string) => void (stdoutClosed || process.stderr.write(scrub(text)));

/** One line, no stack: for errors we expect (configuration, sessions, the network). */
function describeFailure(error: unknown, verbose: boolean): string {
  if (error instanceof UsageError || error instanceof RxAgentError) return error.message;
  if (verbose && error instanceof Error && error.stack) return `internal error: ${error.stack}`;
  return `internal error: ${error instanceof Error ? error.message : String(error)} (run with --verbose for details)`;
}

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
      { stdin: process.stdin, writeOut, writeErr, ...hostTimeout(process.env['RXAGENT_HOST_TIMEOUT_MS']), ...(debug ? { onEvent: debug.loopEvent } : {}) },
    );
  } finally {
    await Promise.allSettled(runs.map((r) => r.close()));
  }
}

async function runPrint(options: CliOptions): Promise<number> {
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
    const mapper = createRunMapper(run, { includePartialMessages: options.includePartialMessages && options.outputFormat === 'stream-json' });
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

export async function main(argv: readonly string[]): Promise<number> {
  if (argv[0] === 'serve') {
    try {
      // Loaded only for `serve`: the other modes do not pay for the server's modules at start.
      const { runServe } = await import('../serve/runServe.js');
      return await runServe(argv.slice(1), { writeOut, writeErr });
    } catch (error) {
      writeErr(`rxagent: ${describeFailure(error, false)}\n`);
      return error instanceof UsageError ? 2 : 1;
    }
  }
  if (argv[0] === 'mcp') {
    const stop = new AbortController();
    const onSignal = () => stop.abort();
    process.once('SIGINT', onSignal);
    try {
      // `rxagent mcp login|logout <server>`: loaded only for it.
      const { runMcpCommand } = await import('../mcp/cli/mcpCommand.js');
      return await runMcpCommand(argv.slice(1), { writeOut, writeErr, signal: stop.signal });
    } catch (error) {
      writeErr(`rxagent: ${describeFailure(error, false)}\n`);
      return error instanceof UsageError ? 2 : 1;
    } finally {
      process.off('SIGINT', onSignal);
    }
  }
  if (argv[0] === 'worker' || argv[0] === 'submit' || argv[0] === 'result') {
    try {
      // Loaded only for these: the queue's modules (pg-boss) cost the other modes nothing.
      const { runFleetCommand } = await import('../fleet/cli/fleetCommand.js');
      return await runFleetCommand(argv[0], argv.slice(1), { writeOut, writeErr });
    } catch (error) {
      writeErr(`rxagent: ${describeFailure(error, false)}\n`);
      return error instanceof UsageError ? 2 : 1;
    }
  }
  let options: CliOptions;
  try {
    options = parseCliArgs(argv);
  } catch (error) {
    writeErr(`rxagent: ${describeFailure(error, false)} (see rxagent --help)\n`);
    return 2;
  }
  if (options.help) {
    writeOut(HELP_TEXT);
    return 0;
  }
  if (options.version) {
    writeOut(`${packageVersion()} (rxagent)\n`);
    return 0;
  }
  try {
    return options.print ? await runPrint(options) : await (await import('./interactive/runInteractive.js')).runInteractive(options);
  } catch (error) {
    writeErr(`rxagent: ${describeFailure(error, options.verbose)}\n`);
    return error instanceof UsageError ? 2 : 1;
  }
}

/** Waits until stdout has taken everything written, so piped output is never cut short. */
function flushThenExit(code: number): void {
  process.exitCode = code;
  process.stdout.write('', () => undefined);
}

main(process.argv.slice(2)).then(flushThenExit, (error: unknown) => {
  writeErr(`rxagent: internal error: ${error instanceof Error ? error.message : String(error)}\n`);
  flushThenExit(1);
});
