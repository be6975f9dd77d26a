/** Host processes seen through /proc, for tests that check what survives a call or a run. */
import { readdirSync, readFileSync } from 'node:fs';

/** Live (not zombie) host processes whose command line contains `token`, this process excepted. */
export function processesWith(token: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (!cmdline.includes(token)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
      if (state !== 'Z' && state !== 'X') found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Polls (bounded, ~10 s) until `done()`; real time only because process exit is real I/O. */
export async function waitFor(done: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (done()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  if (!done()) throw new Error(`gave up waiting for ${what}`);
}

/** The processes carrying `token` once they had every chance to end (empty when all are gone). */
export async function survivorsOf(token: string): Promise<number[]> {
  await waitFor(() => processesWith(token).length === 0, `processes with ${token} to end`).catch(() => undefined);
  return processesWith(token);
}
