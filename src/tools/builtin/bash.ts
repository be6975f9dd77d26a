/** Bash: run a shell command in the workspace, in its own process group. */
import { defer, from, map, race, switchMap } from 'rxjs';
import { fromAbortSignal } from '../../../operators/internal/fromAbortSignal.js';
import { z } from 'zod';
import { BASH_INPUT_JSON_SCHEMA } from '../builtinInputJsonSchemas.js';
import { withPrecomputedJsonSchema } from '../precomputedJsonSchema.js';
import { accessFor } from '../../sandbox/createSandbox.js';
import type { CommandSandbox } from '../../sandbox/types.js';
import type { ToolSpec, ToolYield } from '../types.js';
import { ToolFailure } from '../toolFailure.js';
import { bashFactsOf, type BashFacts } from '../../permissions/bashCheck.js';
import { isReadOnlyBashCommand } from './bashReadOnly.js';
import { BashCheckFailed, sharedBashCheck, type BashChecker } from '../../permissions/bashCheckThread.js';
import { type ProcessGroupResult, runProcessGroup } from './processGroup.js';
import type { Workspace } from './workspace.js';

export const BASH_DEFAULT_TIMEOUT_MS = 120_000;
export const BASH_MAX_TIMEOUT_MS = 600_000;
export const BASH_MAX_OUTPUT_CHARS = 30_000;

/**
 * The longest command whose concurrency safety is classified on the main thread. That is the
 * one parse left there, and it is not free (bashCheckThread.ts): the first one loads mvdan-sh
 * (~0.2 s once), and up to 128 characters a classification took 1-5 ms at the median under
 * load, with 15-20 ms collections at the 90th percentile. The permission check itself never
 * runs here.
 */
export const INLINE_CONCURRENCY_CHARS = 128;

/** The input schema for given timeout limits (the command's BASH_DEFAULT_TIMEOUT_MS / BASH_MAX_TIMEOUT_MS). */
export function bashInputSchemaFor(defaultTimeoutMs: number, maxTimeoutMs: number) {
  // Getters: the fields are built at the first parse or JSON Schema, not when the command loads (content.ts says why).
  return z.strictObject({
    get command() {
      return z.string().min(1).describe('The command to run with bash -c in the working directory.');
    },
    get timeout() {
      return z
        .number()
        .int()
        .positive()
        .max(maxTimeoutMs)
        .optional()
        .describe(`Timeout in milliseconds (default ${defaultTimeoutMs}, at most ${maxTimeoutMs}).`);
    },
    get description() {
      return z.string().optional().describe('A few words saying what the command does, for the user.');
    },
  });
}

export const bashInputSchema = withPrecomputedJsonSchema(bashInputSchemaFor(BASH_DEFAULT_TIMEOUT_MS, BASH_MAX_TIMEOUT_MS), BASH_INPUT_JSON_SCHEMA);
export type BashInput = z.infer<typeof bashInputSchema>;

/** A command that ran but failed (non-zero exit, signal, timeout); the message carries its output. */
export class CommandFailed extends ToolFailure {
  override readonly name = 'CommandFailed';
}

/** Options of {@link bashTool}: how long a killed command gets to exit, and how much output the model sees. */
export interface BashToolOptions {
  /** Wait between SIGTERM and SIGKILL of the process group (default 2000 ms). */
  readonly killGraceMs?: number;
  readonly maxOutputChars?: number;
  /** A call's timeout when the model gives none (default 120 s). */
  readonly defaultTimeoutMs?: number;
  /** The largest timeout the model may ask for (default 600 s; never below the default). */
  readonly maxTimeoutMs?: number;
  /** The commands' environment (default: this process's, without rxagent's credentials). */
  readonly env?: NodeJS.ProcessEnv;
  /**
   * Where commands run: the run's OS sandbox (see `createSandbox`). `createBuiltinTools` gives
   * one for the workspace by default; without any, commands run unconfined.
   */
  readonly sandbox?: CommandSandbox;
  /**
   * The permission mode, for the sandbox: plan mode mounts the workspace read-only, and only
   * bypassPermissions lets commands write `.git`/`.rxagent`/`.claude`. Default `default`.
   */
  readonly permissionMode?: string | (() => string);
  /** Where commands are classified (default: the process's worker thread, as the permission check). */
  readonly bashCheck?: BashChecker;
}

/**
 * The Bash tool's spec (pass it to `defineTool`): the command runs in its own process group, so a
 * timeout or abort kills all of it.
 */
export function bashTool(workspace: Workspace, options: BashToolOptions = {}): ToolSpec<BashInput, string> {
  const maxOutputChars = options.maxOutputChars ?? BASH_MAX_OUTPUT_CHARS;
  const defaultTimeoutMs = options.defaultTimeoutMs ?? BASH_DEFAULT_TIMEOUT_MS;
  const maxTimeoutMs = Math.max(options.maxTimeoutMs ?? BASH_MAX_TIMEOUT_MS, defaultTimeoutMs);
  const checker = () => options.bashCheck ?? sharedBashCheck();
  // The facts the permission check brought (or, for a text it did not see, a fresh check): the
  // sandbox access depends on the read-only classification.
  const factsOf = (command: string, signal: AbortSignal) =>
    defer(() => {
      const known = checker().known(command);
      if (known !== undefined) return [known];
      return from(
        checker()
          .check({ kind: 'facts', command }, signal)
          .then(
            (answer) => answer.facts,
            (error: unknown): BashFacts => {
              // Too long to parse: the parser refuses it at its first line, so this costs nothing here.
              if (error instanceof BashCheckFailed && error.failure === 'too_long') return bashFactsOf(command);
              if (error instanceof BashCheckFailed) throw new CommandFailed(`The command was not run: ${error.message}.`);
              throw error;
            },
          ),
      );
    });
  return {
    name: 'Bash',
    description:
      'Runs a bash command in the working directory and returns its combined stdout and stderr with the exit code. ' +
      `Default timeout ${defaultTimeoutMs / 1000} s, at most ${maxTimeoutMs / 1000} s; on timeout the command and ` +
      `everything it started are stopped. Output beyond ${maxOutputChars} characters is cut. Each call starts a fresh ` +
      'shell (cd does not persist). Prefer Read, Glob and Grep for reading and searching files.',
    inputSchema: defaultTimeoutMs === BASH_DEFAULT_TIMEOUT_MS && maxTimeoutMs === BASH_MAX_TIMEOUT_MS ? bashInputSchema : bashInputSchemaFor(defaultTimeoutMs, maxTimeoutMs),
    // Decided before the permission check and synchronously, so it cannot wait for the worker:
    // a text the worker already classified uses its facts; a short one is classified here (SPEC
    // §13: read-only commands run side by side); a longer first-seen one runs alone.
    isConcurrencySafe: (input) =>
      checker().known(input.command)?.readOnly ?? (input.command.length <= INLINE_CONCURRENCY_CHARS && isReadOnlyBashCommand(input.command)),
    interruptBehavior: 'cancel',
    call(input, ctx) {
      const timeoutMs = input.timeout ?? defaultTimeoutMs;
      // A command auto-allowed as read-only gets a read-only workspace too: a wrong
      // classification then still cannot write.
      const mode = typeof options.permissionMode === 'function' ? options.permissionMode() : (options.permissionMode ?? 'default');
      const run$ = factsOf(input.command, ctx.signal).pipe(
        switchMap((facts) => {
          const spawnPlan = options.sandbox?.plan(input.command, workspace.cwd, accessFor(mode, facts.readOnly));
          return runProcessGroup({
            command: input.command,
            cwd: workspace.cwd,
            ...(spawnPlan ? { spawnPlan } : {}),
            timeoutMs,
            combineOutput: true,
            maxOutputChars,
            ...(options.env ? { env: options.env } : {}),
            ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
          }).pipe(map((result) => (spawnPlan?.note === undefined ? result : withNote(result, spawnPlan.note))));
        }),
        map((result): ToolYield<string> => ({
          type: 'outcome',
          output: describeSuccess(result, timeoutMs, maxTimeoutMs),
          structured: bashResultOf(result),
        })),
      );
      // Abort arrives as a signal too (interrupt, batch timeout); answering it with an error
      // unsubscribes run$, which ends the process group. An already aborted signal wins before
      // run$ is subscribed, so nothing is started.
      const cancelled$ = fromAbortSignal(ctx.signal).pipe(
        map((): never => {
          throw new CommandFailed('The command was cancelled; its processes were stopped.', stoppedBashResult());
        }),
      );
      return race(cancelled$, run$);
    },
    // Stopped by an interrupt or the pipeline's timer: what it printed is not known here.
    stoppedResult: stoppedBashResult,
  };
}

/**
 * Bash's structured result, in Claude Code's shape (the SDK's `BashOutput`): a command that exited
 * 0, and one that was stopped (its timeout, an interrupt) with `interrupted: true`, as Claude
 * Code reports a stopped command. A non-zero exit has none: Claude Code's is an error
 * (`tool_use_result` "Error: ..."). stdout and stderr are read as one stream, so everything is in
 * `stdout`, as the model sees it.
 */
export interface BashResult {
  readonly stdout: string;
  readonly stderr: string;
  readonly interrupted: boolean;
  readonly isImage: boolean;
  readonly noOutputExpected: boolean;
}

function bashResultOf(result: ProcessGroupResult, interrupted = false): BashResult {
  return { stdout: result.output.replace(/\n$/, ''), stderr: '', interrupted, isImage: false, noOutputExpected: false };
}

/** The sandbox's note after the command's own output. */
function withNote(result: ProcessGroupResult, note: string): ProcessGroupResult {
  const text = result.output.replace(/\n$/, '');
  return { ...result, output: `${text === '' ? '' : `${text}\n`}[${note}]\n` };
}

/** A command stopped before its end whose output is not at hand (the process group was cut off). */
function stoppedBashResult(): BashResult {
  return { stdout: '', stderr: '', interrupted: true, isImage: false, noOutputExpected: false };
}

/** The text for a command that exited 0; anything else is thrown as `CommandFailed`. */
function describeSuccess(result: ProcessGroupResult, timeoutMs: number, maxTimeoutMs: number): string {
  let text = result.output.replace(/\n$/, '');
  if (result.outputDropped > 0) {
    text += `\n[Output cut: ${result.outputDropped} more characters not shown. Redirect to a file and Read it, or filter with head/grep.]`;
  }
  if (result.timedOut) {
    throw new CommandFailed(
      `${text}\n[The command timed out after ${timeoutMs} ms and was stopped with everything it started. Pass a larger timeout (max ${maxTimeoutMs} ms) or run something shorter.]`.trimStart(),
      bashResultOf(result, true),
    );
  }
  if (result.exitCode !== 0) {
    const how = result.exitCode === null ? `killed by ${result.signal ?? 'a signal'}` : `exit code ${result.exitCode}`;
    throw new CommandFailed(`${text}\n[${how}]`.trimStart());
  }
  return text === '' ? '(no output, exit code 0)' : `${text}\n[exit code 0]`;
}
