/** Runs one hook (a command or an in-process callback) and interprets what it did. */
import { lastValueFrom, mergeMap, takeUntil, throwError, timer, type Observable } from 'rxjs';
import { fromAbortSignal } from '../../operators/internal/fromAbortSignal.js';
import { accessFor } from '../sandbox/createSandbox.js';
import type { CommandSandbox } from '../sandbox/types.js';
import { runProcessGroup } from '../tools/builtin/processGroup.js';
import { type HookOutcome, interpretJSON, interpretProcessOutcome } from './interpretHookOutput.js';
import type { HookRunReport } from './hookLifecycle.js';
import type { HookInput, HookJSONOutput, HookSpec } from './types.js';

export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;
/** A hook's `timeout` is clamped to this: a settings file must not hold a run for days. */
export const MAX_HOOK_TIMEOUT_SECONDS = 600;
/** Hook output beyond this is dropped; hooks answer with small JSON objects. */
const HOOK_OUTPUT_CAP = 1_000_000;
/** A block reason reaches the model like Bash output does: cut at the same length. */
export const HOOK_MESSAGE_MAX_CHARS = 30_000;

export interface RunHookOptions {
  /** The workspace: commands run there. */
  readonly cwd: string;
  readonly signal?: AbortSignal;
  /** SIGTERM → SIGKILL grace for command hooks (default 2000 ms). */
  readonly killGraceMs?: number;
  /** The run's sandbox: command hooks run in it like Bash (workspace writable, protected folders not). */
  readonly sandbox?: CommandSandbox;
  /** For the sandbox's protected folders (writable in bypassPermissions only). */
  readonly permissionMode?: string;
  /** The commands' environment (default: this process's, without rxagent's credentials). */
  readonly env?: NodeJS.ProcessEnv;
  /** Told what the hook printed and how it ended (for `hook_response` lines and the debug log). */
  readonly onFinished?: (report: HookRunReport) => void;
}

/** The timeout of one hook in ms: its own (clamped to a sane range) or the default. */
export function hookTimeoutMs(seconds: number | undefined): number {
  const wanted = seconds === undefined || !Number.isFinite(seconds) || seconds <= 0 ? DEFAULT_HOOK_TIMEOUT_SECONDS : seconds;
  return Math.min(wanted, MAX_HOOK_TIMEOUT_SECONDS) * 1000;
}

/** Cuts a hook's message for the model the way Bash output is cut, saying how much was left out. */
export function cutHookMessage(text: string): string {
  if (text.length <= HOOK_MESSAGE_MAX_CHARS) return text;
  return `${text.slice(0, HOOK_MESSAGE_MAX_CHARS)}\n[Hook message cut: ${text.length - HOOK_MESSAGE_MAX_CHARS} more characters not shown.]`;
}

/** Runs one hook (a command in its own process group, or an in-process callback) and interprets its answer; failures become warnings. */
export async function runHook(spec: HookSpec, input: HookInput, options: RunHookOptions): Promise<HookOutcome> {
  const timeoutMs = hookTimeoutMs(spec.timeout);
  const event = input.hook_event_name;
  if (spec.type === 'command') {
    const label = JSON.stringify(spec.command);
    const process$ = runProcessGroup({
      command: spec.command,
      cwd: options.cwd,
      stdin: JSON.stringify(input),
      timeoutMs,
      combineOutput: false,
      maxOutputChars: HOOK_OUTPUT_CAP,
      ...(options.env ? { env: options.env } : {}),
      ...(options.sandbox
        ? { spawnPlan: options.sandbox.plan(spec.command, options.cwd, accessFor(options.permissionMode ?? 'default', false)) }
        : {}),
      ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
    });
    try {
      const result = await lastValueFrom(abortable(process$, options.signal));
      options.onFinished?.({
        stdout: result.output,
        stderr: result.stderr,
        ...(result.exitCode === null ? {} : { exitCode: result.exitCode }),
        outcome: result.exitCode === 0 && !result.timedOut ? 'success' : 'error',
      });
      return cutOutcome(interpretProcessOutcome(event, label, {
        exitCode: result.exitCode,
        stdout: result.output,
        stderr: result.stderr,
        timedOut: result.timedOut,
      }));
    } catch (error) {
      const cancelled = options.signal?.aborted === true;
      options.onFinished?.({ stdout: '', stderr: cancelled ? '' : (error as Error).message, outcome: cancelled ? 'cancelled' : 'error' });
      return { warnings: [`${event} hook ${label} could not run: ${(error as Error).message}`] };
    }
  }
  const label = spec.name ?? 'callback';
  // An 'abort' listener added now would never fire: do not start a callback for a cancelled run
  // (the command path's `abortable` refuses it the same way).
  if (options.signal?.aborted) {
    options.onFinished?.({ stdout: '', stderr: '', outcome: 'cancelled' });
    return { warnings: [`${event} hook ${label} was cancelled; its result was ignored.`] };
  }
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  const timeout = timer(timeoutMs).subscribe(() => controller.abort());
  try {
    const answer = await Promise.race([
      Promise.resolve().then(() => spec.callback(input, { signal: controller.signal })),
      new Promise<'timeout'>((resolve) => controller.signal.addEventListener('abort', () => resolve('timeout'), { once: true })),
    ]);
    if (answer === 'timeout') {
      options.onFinished?.({ stdout: '', stderr: '', outcome: options.signal?.aborted ? 'cancelled' : 'error' });
      return { warnings: [`${event} hook ${label} ${options.signal?.aborted ? 'was cancelled' : 'timed out'}; its result was ignored.`] };
    }
    options.onFinished?.({ stdout: answer === undefined || answer === null ? '' : JSON.stringify(answer), stderr: '', outcome: 'success' });
    return cutOutcome(interpretJSON(event, label, answer as HookJSONOutput | undefined));
  } catch (error) {
    options.onFinished?.({ stdout: '', stderr: error instanceof Error ? error.message : String(error), outcome: 'error' });
    return { warnings: [`${event} hook ${label} failed: ${error instanceof Error ? error.message : String(error)}`] };
  } finally {
    timeout.unsubscribe();
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/** Errors when `signal` aborts, which unsubscribes (and so kills) the process group. */
function abortable<T>(source$: Observable<T>, signal: AbortSignal | undefined): Observable<T> {
  if (!signal) return source$;
  // takeUntil forwards its notifier's error: the abort becomes the 'cancelled' error.
  return source$.pipe(takeUntil(fromAbortSignal(signal).pipe(mergeMap(() => throwError(() => new Error('cancelled'))))));
}

/** The outcome with every text the model will read cut like Bash output. */
function cutOutcome(outcome: HookOutcome): HookOutcome {
  const { block, preventContinuation, permissionDecisionReason, additionalContext } = outcome;
  return {
    ...outcome,
    ...(block === undefined ? {} : { block: cutHookMessage(block) }),
    ...(preventContinuation === undefined ? {} : { preventContinuation: cutHookMessage(preventContinuation) }),
    ...(permissionDecisionReason === undefined ? {} : { permissionDecisionReason: cutHookMessage(permissionDecisionReason) }),
    ...(additionalContext === undefined ? {} : { additionalContext: cutHookMessage(additionalContext) }),
  };
}
