/**
 * The session store against what a hostile or unlucky file system holds: a lock whose pid now
 * belongs to another process, two workspaces whose folder names used to coincide, and a
 * transcript path that is a FIFO or a symlink. Real processes, real files.
 */
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { SessionFileTypeError, SessionLockedError } from '../../src/session/errors.js';
import { createJsonlSessionStore } from '../../src/session/jsonlSessionStore.js';
import { processStartTime } from '../../src/session/lock.js';
import { workspaceSlug } from '../../src/session/paths.js';
import { makeTempDir } from '../builtin/helpers.js';

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir('rxagent-sec-session-'));
});
afterEach(() => cleanup());

const lockOf = (pid: number, processStartedAt: number) => JSON.stringify({ pid, processStartedAt, lockedAt: Date.now() });

describe('a stale lock whose pid was reused', () => {
  test('this very process, recorded with another start time, is a reused pid: the lock is taken over', async () => {
    const dir = join(root, 'sessions');
    const store = createJsonlSessionStore({ workspace: root, dir });
    await (await store.open('s1', { mode: 'create' })).close();
    const started = processStartTime(process.pid);
    expect(started).toBeGreaterThan(0);
    // A lock written by a writer that started an hour before whoever has this pid now.
    await writeFile(join(dir, 's1.lock'), lockOf(process.pid, started! - 3_600_000));
    const writer = await store.open('s1', { mode: 'resume' });
    expect(JSON.parse(await readFile(join(dir, 's1.lock'), 'utf8'))).toMatchObject({ pid: process.pid, processStartedAt: started });
    await writer.close();
  });

  test('a live process with the recorded start time still holds it; the same pid with another start time does not', async () => {
    const dir = join(root, 'sessions');
    const store = createJsonlSessionStore({ workspace: root, dir });
    await (await store.open('s1', { mode: 'create' })).close();
    const holder = spawn('sleep', ['600'], { stdio: 'ignore' });
    try {
      const started = processStartTime(holder.pid!);
      expect(started).toBeGreaterThan(0);
      await writeFile(join(dir, 's1.lock'), lockOf(holder.pid!, started!));
      await expect(store.open('s1', { mode: 'resume' })).rejects.toBeInstanceOf(SessionLockedError);
      await writeFile(join(dir, 's1.lock'), lockOf(holder.pid!, started! + 5_000));
      await (await store.open('s1', { mode: 'resume' })).close();
    } finally {
      holder.kill('SIGKILL');
      await once(holder, 'exit');
    }
  });
});

describe('two workspaces never share a session folder', () => {
  test('/x/a-b and /x/a/b (and /x/a.b, /x/a_b) get different folders; a path of letters, digits and / keeps its old name', () => {
    const names = ['/x/a-b', '/x/a/b', '/x/a.b', '/x/a_b', '/x/a b'].map(workspaceSlug);
    expect(new Set(names).size).toBe(names.length);
    expect(workspaceSlug('/x/a/b')).toBe('-x-a-b');
    expect(workspaceSlug('/x/a-b')).toMatch(/^-x-a-b_[0-9a-f]{16}$/);
  });

  test('sessions of one are neither listed nor resumable from the other', async () => {
    const home = join(root, 'home');
    const first = join(root, 'w', 'a-b');
    const second = join(root, 'w', 'a', 'b');
    await mkdir(first, { recursive: true });
    await mkdir(second, { recursive: true });
    const storeOf = (workspace: string) => createJsonlSessionStore({ workspace, dir: join(home, '.rxagent', 'projects', workspaceSlug(workspace)) });
    await (await storeOf(first).open('only-in-first', { mode: 'create' })).close();
    expect(storeOf(first).dir).not.toBe(storeOf(second).dir);
    expect((await storeOf(second).list()).map((s) => s.sessionId)).toEqual([]);
    await expect(storeOf(second).open('only-in-first', { mode: 'resume' })).rejects.toThrow(/not found/);
  });
});

describe('a transcript that is not a regular file is refused at once', () => {
  test('a FIFO: read and resume fail with SessionFileTypeError instead of waiting for a writer', async () => {
    const dir = join(root, 'sessions');
    await mkdir(dir);
    execFileSync('mkfifo', [join(dir, 'fifo.jsonl')]);
    const store = createJsonlSessionStore({ workspace: root, dir });
    await expect(store.read('fifo')).rejects.toBeInstanceOf(SessionFileTypeError);
    const error = await store.open('fifo', { mode: 'resume' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionFileTypeError);
    expect((error as SessionFileTypeError).message).toMatch(/is a FIFO, not a regular file/);
    // The lock taken for the attempt was released.
    await expect(readFile(join(dir, 'fifo.lock'))).rejects.toThrow(/ENOENT/);
  });

  test('a symlink to a file elsewhere: nothing is read through it or appended to it', async () => {
    const dir = join(root, 'sessions');
    await mkdir(dir);
    const elsewhere = join(root, 'elsewhere.txt');
    await writeFile(elsewhere, 'not a transcript\n');
    await symlink(elsewhere, join(dir, 'link.jsonl'));
    const store = createJsonlSessionStore({ workspace: root, dir });
    await expect(store.read('link')).rejects.toThrow(/symbolic link, not a regular file/);
    await expect(store.open('link', { mode: 'resume' })).rejects.toBeInstanceOf(SessionFileTypeError);
    expect(await readFile(elsewhere, 'utf8')).toBe('not a transcript\n');
  });

  test('a directory in its place is refused too', async () => {
    const dir = join(root, 'sessions');
    await mkdir(join(dir, 'd.jsonl'), { recursive: true });
    const store = createJsonlSessionStore({ workspace: root, dir });
    await expect(store.read('d')).rejects.toBeInstanceOf(SessionFileTypeError);
    await expect(store.open('d', { mode: 'resume' })).rejects.toBeInstanceOf(SessionFileTypeError);
  });
});
