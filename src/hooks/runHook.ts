/** Runs one hook (a command or an in-process callback) and interprets what it did. */
import { lastValueFrom, Observable, timer } from 'rxjs';
import { runProcessGroup } from '../tools/builtin/processGroup.js';
import { type HookOutcome, interpretJSON, interpretProcessOutcome } from './interpretHookOutput.js';
import type { HookInput, HookJSONOutput, HookSpec } from './types.js';

export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;
/** Hook output beyond this is dropped; hooks answer with small JSON objects. */
const HOOK_OUTPUT_CAP = 1_000_000;

export interface RunHookOptions {
  /** The workspace: commands run there. */
  readonly cwd: string;
  readonly signal?: AbortSignal;
  /** SIGTERM → SIGKILL grace for command hooks (default 2000 ms). */
  readonly killGraceMs?: number;
}

/** Runs one hook (a command in its own process group, or an in-process callback) and interprets its answer; failures become warnings. */
export async function runHook(spec: HookSpec, input: HookInput, options: RunHookOptions): Promise<HookOutcome> {
  const timeoutMs = (spec.timeout ?? DEFAULT_HOOK_TIMEOUT_SECONDS) * 1000;
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
      ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
    });
    try {
      const result = await lastValueFrom(abortable(process$, options.signal));
      return interpretProcessOutcome(event, label, {
        exitCode: result.exitCode,
        stdout: result.output,
        stderr: result.stderr,
        timedOut: result.timedOut,
      });
    } catch (error) {
      return { warnings: [`${event} hook ${label} could not run: ${(error as Error).message}`] };
    }
  }
  const label = spec.name ?? 'callback';
  // An 'abort' listener added now would never fire: do not start a callback for a cancelled run
  // (the command path's `abortable` refuses it the same way).
  if (options.signal?.aborted) return { warnings: [`${event} hook ${label} was cancelled; its result was ignored.`] };
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
      return { warnings: [`${event} hook ${label} ${options.signal?.aborted ? 'was cancelled' : 'timed out'}; its result was ignored.`] };
    }
    return interpretJSON(event, label, answer as HookJSONOutput | undefined);
  } catch (error) {
    return { warnings: [`${event} hook ${label} failed: ${error instanceof Error ? error.message : String(error)}`] };
  } finally {
    timeout.unsubscribe();
    options.signal?.removeEventListener('abort', onAbort);
  }
}

/** Errors when `signal` aborts, which unsubscribes (and so kills) the process group. */
function abortable<T>(source$: Observable<T>, signal: AbortSignal | undefined): Observable<T> {
  if (!signal) return source$;
  return new Observable<T>((subscriber) => {
    const onAbort = () => subscriber.error(new Error('cancelled'));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    const inner = source$.subscribe(subscriber);
    return () => {
      signal.removeEventListener('abort', onAbort);
      inner.unsubscribe();
    };
  });
}
