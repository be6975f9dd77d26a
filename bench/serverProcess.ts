/**
 * A bench server in a child process (its CPU is not charged to the client measured, and it never
 * competes with it for the event loop): spawns `dist/bench/<main>` with `args`, waits for the
 * `{"port":N}` line it prints once listening, and stops it by closing its stdin (resolving with
 * the last line it printed: its summary, if it writes one).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';

export interface ServerProcess {
  readonly port: number;
  close(): Promise<string | undefined>;
}

/** `onLine`: called with every line printed after the port line (a bench's reports). */
export async function spawnServerProcess(main: string, args: readonly string[], onLine?: (line: string) => void): Promise<ServerProcess> {
  const script = fileURLToPath(new URL(`./${main}`, import.meta.url));
  const child = spawn(process.execPath, [script, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let lastLine: string | undefined;
  const lines = createInterface({ input: child.stdout });
  let listening = false;
  lines.on('line', (line) => {
    lastLine = line;
    if (listening) onLine?.(line);
    listening = true;
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${main} exited (${code}) before listening`)));
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  return {
    port,
    async close() {
      child.stdin.end();
      await exited;
      return lastLine;
    },
  };
}
