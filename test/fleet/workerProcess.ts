/**
 * An `rxagent worker` process for the fleet tests: its own workspace (with a note to Read) and
 * HOME, pointed at the scripted model, with short leases so a dead worker's jobs come back soon.
 * `stderr()` is what it said so far; `started`/`completed` the job ids its log lines named.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { CLI, makeSandbox } from '../cli/helpers.js';

export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<number | null>;
  readonly started: ReadonlySet<string>;
  readonly completed: ReadonlySet<string>;
  stderr(): string;
}

export interface WorkerProcessOptions {
  /** The database of both the queue and the sessions. */
  readonly url: string;
  readonly modelBaseURL: string;
  readonly concurrency: number;
  readonly leaseSeconds: number;
  readonly env?: Readonly<Record<string, string>>;
}

export function spawnWorker(options: WorkerProcessOptions): WorkerProcess {
  const box = makeSandbox({ 'note.txt': 'the note\n' });
  const child = spawn(process.execPath, [CLI, 'worker', '--session-store', options.url, '--queue', options.url, '--concurrency', String(options.concurrency)], {
    cwd: box.cwd,
    env: {
      PATH: process.env['PATH'] ?? '', HOME: box.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: options.modelBaseURL,
      RXAGENT_JOB_LEASE_SECONDS: String(options.leaseSeconds), RXAGENT_SESSION_LEASE_MS: String(options.leaseSeconds * 1000),
      ...options.env,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const started = new Set<string>();
  const completed = new Set<string>();
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const [, id, what] of stderr.matchAll(/job (\S+) (started|completed)/g)) (what === 'started' ? started : completed).add(id!);
  });
  return { child, exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))), started, completed, stderr: () => stderr };
}
