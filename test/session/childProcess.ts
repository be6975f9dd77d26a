/** Spawning the session child fixture (which runs the built library from dist/). */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CHILD_SCRIPT = fileURLToPath(new URL('./fixtures/sessionChild.mjs', import.meta.url));
const DIST_STORE = fileURLToPath(new URL('../../dist/src/session/jsonlSessionStore.js', import.meta.url));

export function assertBuilt(): void {
  if (!existsSync(DIST_STORE)) throw new Error(`${DIST_STORE} is missing: run \`npm run build\` first (npm ci does it via prepare)`);
}

export interface Child {
  readonly process: ChildProcess;
  readonly lines: string[];
  /** Resolves with the `count`-th stdout line matching `pattern` (default: the first). */
  waitFor(pattern: RegExp, count?: number): Promise<string>;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
}

export function spawnChild(args: string[], env: Record<string, string> = {}): Child {
  const child = spawn(process.execPath, [CHILD_SCRIPT, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const lines: string[] = [];
  const waiters: { pattern: RegExp; remaining: number; resolve: (line: string) => void; reject: (e: Error) => void }[] = [];
  let buffered = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    buffered += chunk;
    let newline: number;
    while ((newline = buffered.indexOf('\n')) !== -1) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      lines.push(line);
      for (let i = waiters.length - 1; i >= 0; i--) {
        const waiter = waiters[i]!;
        if (waiter.pattern.test(line) && --waiter.remaining === 0) waiters.splice(i, 1)[0]!.resolve(line);
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => {
    for (const waiter of waiters.splice(0)) waiter.reject(new Error(`child exited before printing ${waiter.pattern}; stderr: ${stderr}`));
  });
  return {
    process: child,
    lines,
    exited,
    waitFor(pattern, count = 1) {
      const seen = lines.filter((line) => pattern.test(line));
      if (seen.length >= count) return Promise.resolve(seen[count - 1]!);
      if (child.exitCode !== null || child.signalCode !== null) return Promise.reject(new Error(`child already exited; stderr: ${stderr}`));
      return new Promise((resolve, reject) => waiters.push({ pattern, remaining: count - seen.length, resolve, reject }));
    },
  };
}

export async function killHard(child: Child): Promise<void> {
  if (child.process.exitCode === null && child.process.signalCode === null) child.process.kill('SIGKILL');
  await child.exited;
}
