import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '../eventually.js';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { bashTool, INLINE_CONCURRENCY_CHARS } from '../../src/tools/builtin/bash.js';
import { createBashCheckThread } from '../../src/permissions/bashCheckThread.js';
import { createWorkspace, type Workspace } from '../../src/tools/builtin/workspace.js';
import { isAlive, makeTempDir, runTool } from './helpers.js';

let work: string;
let cleanup: () => Promise<void>;
let ws: Workspace;

beforeEach(async () => {
  ({ dir: work, cleanup } = await makeTempDir());
  ws = createWorkspace({ cwd: work });
});
afterEach(() => cleanup());

const bash = (input: object, signal?: AbortSignal) => runTool(bashTool(ws, { killGraceMs: 300 }), input, signal);

async function pidsFrom(file: string, count: number): Promise<number[]> {
  return eventually(
    async () => {
      const pids = (await readFile(file, 'utf8').catch(() => '')).split(/\s+/).filter(Boolean).map(Number);
      return pids.length >= count ? pids : undefined;
    },
    { what: `the command writing ${count} pid(s)` },
  );
}

async function waitDead(pids: number[]): Promise<void> {
  await eventually(() => !pids.some(isAlive), { what: `processes ${pids.join(', ')} exiting` });
}

describe('Bash', () => {
  test('runs in the workspace and reports output and exit code', async () => {
    expect(await bash({ command: 'pwd; echo err >&2' })).toBe(`${work}\nerr\n[exit code 0]`);
    expect(await bash({ command: 'true' })).toBe('(no output, exit code 0)');
  });

  test('a non-zero exit is an error carrying the output and the code', async () => {
    await expect(bash({ command: 'echo oops; exit 3' })).rejects.toThrow(/^oops\n\[exit code 3\]$/);
  });

  test('output beyond the cap is cut with a note', async () => {
    const out = await runTool(bashTool(ws, { maxOutputChars: 100 }), { command: 'head -c 5000 /dev/zero | tr "\\0" a' });
    expect(out).toMatch(/^a{100}\n\[Output cut: 4900 more characters not shown/);
  });

  test('timeout kills the whole process tree, including children that ignore SIGTERM', async () => {
    const pidFile = join(work, 'pids');
    // The sleeps outlast vitest's hang bound: if the timeout did not kill them the call would hang
    // (and waitDead would fail), so no elapsed-time bound is needed.
    const command =
      `(trap '' TERM; sleep 300) & echo $! >> ${pidFile}; sleep 300 & echo $! >> ${pidFile}; ` +
      `bash -c 'sleep 300 & echo $! >> ${pidFile}; wait' & wait`;
    // 3 s: time for a loaded machine to start all three shells (and write their pids) first.
    await expect(bash({ command, timeout: 3000 })).rejects.toThrow(/timed out after 3000 ms/);
    const pids = await pidsFrom(pidFile, 3);
    await waitDead(pids);
  });

  test('abort kills the whole process tree', async () => {
    const pidFile = join(work, 'pids');
    const controller = new AbortController();
    const result = bash({ command: `sleep 30 & echo $! >> ${pidFile}; sleep 30 & echo $! >> ${pidFile}; wait` }, controller.signal);
    const pids = await pidsFrom(pidFile, 2);
    expect(pids.every(isAlive)).toBe(true);
    controller.abort();
    await expect(result).rejects.toThrow(/cancelled/);
    await waitDead(pids);
    expect(pids.filter(isAlive)).toEqual([]);
  });

  test('unsubscribing the call kills the process tree', async () => {
    const pidFile = join(work, 'pids');
    const spec = bashTool(ws, { killGraceMs: 300 });
    const returned = spec.call({ command: `sleep 30 & echo $! >> ${pidFile}; wait` }, {
      signal: new AbortController().signal,
      toolUseId: 't',
      shared: {},
      progress: () => {},
    });
    const { isObservable } = await import('rxjs');
    if (!isObservable(returned)) throw new Error('Bash should return an Observable');
    const sub = returned.subscribe({ error: () => {} });
    const pids = await pidsFrom(pidFile, 1);
    sub.unsubscribe();
    await waitDead(pids);
    expect(pids.filter(isAlive)).toEqual([]);
  });

  test('a read-only command too long to classify on the main thread runs alone until the check worker has classified its text', async () => {
    const checker = createBashCheckThread();
    const safe = bashTool(ws, { bashCheck: checker }).isConcurrencySafe as (i: { command: string }) => boolean;
    const long = `cat ${'a '.repeat(INLINE_CONCURRENCY_CHARS)}`;
    expect(safe({ command: long })).toBe(false);
    await checker.check({ kind: 'facts', command: long });
    expect(safe({ command: long })).toBe(true);
    await checker.stop();
  });

  test('concurrency safety follows the read-only classifier; timeout bounds are in the schema', () => {
    const spec = bashTool(ws);
    const safe = spec.isConcurrencySafe as (i: { command: string }) => boolean;
    expect(safe({ command: 'git status && ls' })).toBe(true);
    expect(safe({ command: 'ls > out' })).toBe(false);
    expect(spec.inputSchema.safeParse({ command: 'ls', timeout: 600_001 }).success).toBe(false);
    expect(spec.inputSchema.safeParse({ command: 'ls', timeout: 600_000, description: 'list' }).success).toBe(true);
  });
});
