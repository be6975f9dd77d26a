/**
 * Runs a step-by-step procedure written as a generator, where a step may answer a value or a
 * Promise. Values continue synchronously; only a real Promise makes the rest asynchronous.
 *
 * Why not `async`/`await`: `await` defers even a plain value to a microtask, so a pipeline of
 * synchronous hooks and tools would never run inside RxJS virtual time (marble tests), and
 * every call would pay several microtask hops. Here a fully synchronous call stays synchronous.
 */
import { isPromiseLike } from '../../operators/internal/fromMaybeAsync.js';

export type MaybePromise<T> = T | PromiseLike<T>;

/** Inside a `drive`n generator: `const x = yield* settle(maybePromise)`. */
export function* settle<T>(value: MaybePromise<T>): Generator<MaybePromise<T>, T, unknown> {
  return (yield value) as T;
}

/** Who a `drive` reports to. An object, not three callbacks: a call pays no closures for it. */
export interface DriveHost<R> {
  /** Checked before every resume: once true the generator is closed and nothing is reported. */
  isCancelled(): boolean;
  onDone(result: R): void;
  onError(error: unknown): void;
}

/**
 * Drives `steps` to its end. `host.isCancelled` is checked before every resume: once it says
 * true the generator is closed (its `finally` blocks run) and neither `onDone` nor `onError` is
 * called.
 */
export function drive<R>(steps: Generator<unknown, R, unknown>, host: DriveHost<R>): void {
  resume(steps, host, undefined, false);
}

// Module-level (not a closure per drive): its optimized code outlives every call (bench/README.md
// "After a forced GC"). Only a step that answers a real Promise allocates its two callbacks.
function resume<R>(steps: Generator<unknown, R, unknown>, host: DriveHost<R>, input: unknown, throwing: boolean): void {
  for (;;) {
    if (host.isCancelled()) {
      closeQuietly(steps);
      return;
    }
    let step: IteratorResult<unknown, R>;
    try {
      step = throwing ? steps.throw(input) : steps.next(input);
    } catch (error) {
      host.onError(error);
      return;
    }
    if (step.done) {
      host.onDone(step.value);
      return;
    }
    const value = step.value;
    if (isPromiseLike(value)) {
      value.then(
        (settled) => resume(steps, host, settled, false),
        (error: unknown) => resume(steps, host, error, true),
      );
      return;
    }
    input = value;
    throwing = false;
  }
}

function closeQuietly(steps: Generator<unknown, unknown, unknown>): void {
  try {
    steps.return(undefined);
  } catch {
    // A generator's cleanup failing after cancellation has nowhere to go: nobody listens.
  }
}
