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

/**
 * Drives `steps` to its end. `isCancelled` is checked before every resume: once it says true
 * the generator is closed (its `finally` blocks run) and neither callback is called.
 */
export function drive<R>(
  steps: Generator<unknown, R, unknown>,
  onDone: (result: R) => void,
  onError: (error: unknown) => void,
  isCancelled: () => boolean,
): void {
  let input: unknown;
  let throwing = false;
  const resume = (): void => {
    for (;;) {
      if (isCancelled()) {
        closeQuietly(steps);
        return;
      }
      let step: IteratorResult<unknown, R>;
      try {
        step = throwing ? steps.throw(input) : steps.next(input);
      } catch (error) {
        onError(error);
        return;
      }
      if (step.done) {
        onDone(step.value);
        return;
      }
      const value = step.value;
      if (isPromiseLike(value)) {
        value.then(
          (settled) => {
            input = settled;
            throwing = false;
            resume();
          },
          (error: unknown) => {
            input = error;
            throwing = true;
            resume();
          },
        );
        return;
      }
      input = value;
      throwing = false;
    }
  };
  resume();
}

function closeQuietly(steps: Generator<unknown, unknown, unknown>): void {
  try {
    steps.return(undefined);
  } catch {
    // A generator's cleanup failing after cancellation has nowhere to go: nobody listens.
  }
}
