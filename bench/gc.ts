/**
 * A full garbage collection for memory figures, also when node runs without `--expose-gc` (the
 * bench script runs plain `node`): the flag is set at run time and `gc` taken from a fresh
 * context, where V8 installs it once the flag is on.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

function resolveGc(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (typeof exposed === 'function') return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** Runs a full collection (twice: the first may only queue finalizers). */
export function collectGarbage(): void {
  gc ??= resolveGc();
  gc();
  gc();
}
