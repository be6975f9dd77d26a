/** Host processes seen through /proc, for tests that check what survives a call or a run. */
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Live (not zombie) host processes whose command line contains every one of `tokens`, this process
 * excepted. A token shared by many runs (the proxy bridge's source is on the command line of every
 * proxied bwrap) is narrowed with one only the test's own run has, such as its temporary workspace:
 * tests running concurrently, or other suites on the machine, have such processes too.
 */
export function processesWith(...tokens: [string, ...string[]]): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (!tokens.every((token) => cmdline.includes(token))) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state !== 'Z' && state !== 'X') found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * Polls until `done()`: process exit is real I/O, so real time, but only as a hang bound (60 s,
 * not the 10 s it was: on a loaded 2-core machine a killed sandbox tree can take seconds to go,
 * and `survivorsOf` would then report processes that were merely still dying).
 */
export async function waitFor(done: () => boolean, what: string, boundMs = 60_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${boundMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** The processes carrying `token` once they had every chance to end (empty when all are gone). */
export async function survivorsOf(...tokens: [string, ...string[]]): Promise<number[]> {
  await waitFor(() => processesWith(...tokens).length === 0, `processes with ${tokens.join(' and ')} to end`).catch(() => undefined);
  return processesWith(...tokens);
}
