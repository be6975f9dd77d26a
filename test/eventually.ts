/**
 * Waiting for an effect of real I/O (a file written, a process gone, a socket closed) instead of
 * sleeping a fixed time and hoping it happened. The bound is generous on purpose: it only decides
 * how long a genuinely broken run takes to fail, never whether a slow machine passes.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** Resolves once `check()` is truthy (polled every `everyMs`); throws after `timeoutMs`. */
export async function eventually<T>(
  check: () => T | Promise<T>,
  { timeoutMs = 15_000, everyMs = 10, what = 'the condition' }: { timeoutMs?: number; everyMs?: number; what?: string } = {},
): Promise<NonNullable<T>> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (performance.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await sleep(everyMs);
  }
}
