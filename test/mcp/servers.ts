/**
 * The real MCP servers the tests start: the reference servers from npm (through their installed
 * bin, run by this node), over stdio and over Streamable HTTP on 127.0.0.1, and our own fixture
 * servers built with the SDK's server classes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

function binOf(pkg: string, bin: string): string {
  const manifest = require.resolve(`${pkg}/package.json`);
  const bins = (require(manifest) as { bin: Record<string, string> }).bin;
  return join(dirname(manifest), bins[bin]!);
}

export const EVERYTHING_BIN = binOf('@modelcontextprotocol/server-everything', 'mcp-server-everything');
export const FILESYSTEM_BIN = binOf('@modelcontextprotocol/server-filesystem', 'mcp-server-filesystem');
/** Our fixture server (SDK server classes over stdio); its behaviour is chosen by argv[2]. */
export const FIXTURE_SERVER = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'fixtureServer.mjs');

export const everythingStdio = () => ({ command: process.execPath, args: [EVERYTHING_BIN, 'stdio'] });

/** A port that was free a moment ago (the server binds it itself). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export interface RunningHttpServer {
  readonly url: string;
  readonly process: ChildProcess;
  /** What the server logged (it logs each request and session). */
  log(): string;
  /** Resolves once the log matches `pattern` (bounded by the test's own timeout). */
  waitForLog(pattern: RegExp): Promise<void>;
  stop(): Promise<void>;
}

/** How server-everything says it listens, per HTTP mode, and the path its clients connect to. */
const HTTP_MODES = {
  streamableHttp: { ready: (port: number) => `listening on port ${port}`, path: '/mcp' },
  sse: { ready: (port: number) => `Server is running on port ${port}`, path: '/sse' },
} as const;

/**
 * server-everything's Streamable HTTP server (or, with `'sse'`, its legacy HTTP+SSE server),
 * started and waited for until it listens. The client only ever connects to 127.0.0.1.
 */
export async function startEverythingHttp(mode: keyof typeof HTTP_MODES = 'streamableHttp'): Promise<RunningHttpServer> {
  const port = await freePort();
  const { ready, path } = HTTP_MODES[mode];
  const child = spawn(process.execPath, [EVERYTHING_BIN, mode], {
    env: { PATH: process.env['PATH'] ?? '', PORT: String(port) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const onData = (chunk: Buffer) => {
    log += chunk.toString('utf8');
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (log.includes(ready(port))) resolve();
      else if (log.includes('Failed to start')) reject(new Error(log));
    };
    child.stderr!.on('data', check);
    child.once('exit', (code) => reject(new Error(`server-everything exited (${code}) before listening: ${log}`)));
  });
  return {
    url: `http://127.0.0.1:${port}${path}`,
    process: child,
    log: () => log,
    waitForLog: (pattern) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!pattern.test(log)) return;
          child.stderr!.off('data', check);
          resolve();
        };
        child.stderr!.on('data', check);
        check();
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Whether a process is still alive (signal 0 probes without touching it). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
