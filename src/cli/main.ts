#!/usr/bin/env node
/**
 * The `rxagent` command. `-p` runs one turn and prints text, json or stream-json (Claude Code's
 * print mode); without `-p` it is an interactive prompt loop. Exit status: 0 when the turn
 * succeeded, 1 on an error result or a failure to start, 2 on a usage error.
 */
import { setFlagsFromString } from 'node:v8';
import { RxAgentError } from '../errors.js';
import { HELP_TEXT, parseCliArgs, UsageError, type CliOptions } from './args.js';
import { packageVersion } from './version.js';
import { userCacheDir } from './userCacheDir.js';
import { killAllProcessGroups } from '../tools/builtin/processGroup.js';
import { writeErr, writeOut } from './stdio.js';

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
 * A start allocates ~12 MB that mostly stays alive (modules, schemas, the run), in a young
 * generation that begins at 1 MB and doubles after each scavenge: five scavenges before the
 * first reply, each copying nearly everything it finds. Growing it 8× at a time instead leaves
 * three (callgrind: ~15 M instructions, 3-4 % of a `-p` run, fewer); the young generation's
 * maximum is unchanged, it only gets there sooner (~5 MB more committed at the end of a run).
 */
setFlagsFromString('--semi-space-growth-factor=8');

/**
 * Exit paths: whatever ends this process (a normal end, process.exit after a second signal,
 * SIGHUP, a closed stdout), every tool process group still running is killed first. 'exit'
 * handlers run synchronously, and so does process.kill. Sandboxed calls would also die with us
 * (bwrap --die-with-parent); unsandboxed ones would not.
 */
process.on('exit', () => killAllProcessGroups());
// The terminal is gone: nobody reads the rest. Node's default would exit without 'exit' handlers.
process.on('SIGHUP', () => process.exit(129));

/** One line, no stack: for errors we expect (configuration, sessions, the network). */
function describeFailure(error: unknown, verbose: boolean): string {
  if (error instanceof UsageError || error instanceof RxAgentError) return error.message;
  if (verbose && error instanceof Error && error.stack) return `internal error: ${error.stack}`;
  return `internal error: ${error instanceof Error ? error.message : String(error)} (run with --verbose for details)`;
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
    // The sandbox's probe (a bwrap process) runs while the mode's modules load; buildRun waits for
    // it. A working bwrap is remembered in the cache directory, so an unchanged machine spawns none.
    if (!options.noSandbox) (await import('../sandbox/bwrapProbe.js')).probeBwrapAhead(undefined, userCacheDir());
    // zod compiles a parser with `new Function` at an object schema's first parse: worth it in a
    // long-lived process, not for the few parses of one command run (and no code cache holds it).
    (await import('zod')).config({ jitless: true });
    // Each mode's modules load only for it: `--version`, `--help` and a usage error load none.
    return options.print ? await (await import('./printRun.js')).runPrint(options) : await (await import('./interactive/runInteractive.js')).runInteractive(options);
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
