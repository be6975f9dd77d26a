/**
 * A hand-written stream-json host for protocol tests: starts the BUILT `rxagent` with
 * `--input-format stream-json --output-format stream-json`, writes lines to its stdin, and lets
 * the test wait for the line it expects (and answer control requests) as each one arrives.
 */
import { spawn } from 'node:child_process';
import { CLI } from './helpers.js';

export type Line = Record<string, unknown> & { type: string };

export interface StreamHost {
  send(line: Record<string, unknown>): void;
  /** Writes raw text (for malformed lines). */
  sendRaw(text: string): void;
  /** Resolves with the first line (from the start) matching `predicate` not yet taken by another waitFor. */
  waitFor(predicate: (line: Line) => boolean, what: string): Promise<Line>;
  /** Closes stdin. */
  end(): void;
  readonly lines: Line[];
  readonly done: Promise<{ code: number | null; stderr: string }>;
}

export function startStreamHost(extraArgs: readonly string[], options: { cwd: string; home: string; baseURL: string; env?: Record<string, string> }): StreamHost {
  const child = spawn(process.execPath, [CLI, '--input-format', 'stream-json', '--output-format', 'stream-json', '--verbose', ...extraArgs], {
    cwd: options.cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: options.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: options.baseURL, ...options.env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const lines: Line[] = [];
  const taken = new Set<Line>();
  const waiters: Array<{ predicate: (line: Line) => boolean; resolve: (line: Line) => void }> = [];
  let buffer = '';
  let stderr = '';
  const offer = (line: Line) => {
    const index = waiters.findIndex((w) => w.predicate(line));
    if (index === -1) return;
    const [waiter] = waiters.splice(index, 1);
    taken.add(line);
    waiter?.resolve(line);
  };
  child.stdout.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const text = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      const line = JSON.parse(text) as Line;
      lines.push(line);
      offer(line);
    }
  });
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const done = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on('close', (code) => resolve({ code, stderr })));
  return {
    send: (line) => void child.stdin.write(JSON.stringify(line) + '\n'),
    sendRaw: (text) => void child.stdin.write(text),
    waitFor: (predicate, what) => {
      const seen = lines.find((l) => !taken.has(l) && predicate(l));
      if (seen) {
        taken.add(seen);
        return Promise.resolve(seen);
      }
      return new Promise<Line>((resolve, reject) => {
        waiters.push({ predicate, resolve });
        void done.then(() => reject(new Error(`the process ended before ${what}; stderr: ${stderr}`)));
      });
    },
    end: () => void child.stdin.end(),
    lines,
    done,
  };
}

export const userLine = (text: string, uuid?: string) => ({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, session_id: '', ...(uuid ? { uuid } : {}) });
export const isResult = (l: Line) => l.type === 'result';
export const controlRequest = (subtype: string) => (l: Line) => l.type === 'control_request' && (l['request'] as { subtype?: string }).subtype === subtype;
export const responseTo = (requestId: string) => (l: Line) => l.type === 'control_response' && (l['response'] as { request_id?: string }).request_id === requestId;
