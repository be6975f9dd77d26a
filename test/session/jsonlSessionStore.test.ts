import { describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { readFile, symlink, utimes, writeFile, chmod } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createJsonlSessionStore, type JsonlSessionStore } from '../../src/session/jsonlSessionStore.js';
import {
  InvalidSessionIdError,
  InvalidSessionRecordError,
  SessionClosedError,
  SessionExistsError,
  SessionLockedError,
  SessionNotFoundError,
  SessionFileTypeError,
  SessionWriteError,
} from '../../src/session/errors.js';
import { defaultSessionDir, workspaceSlug } from '../../src/session/paths.js';
import { ChainBuilder, useTempStore, text, toolResult, toolUse } from './helpers.js';
import { assertBuilt, killHard, spawnChild } from './childProcess.js';

let dir: string;
let store: JsonlSessionStore;
useTempStore((d, s) => {
  dir = d;
  store = s;
});

describe('createJsonlSessionStore', () => {
  it('round-trips records through one JSONL line each, in append order', async () => {
    const chain = new ChainBuilder('s1');
    chain.user('hello');
    chain.assistant([text('reading'), toolUse('t1')]);
    chain.user([toolResult('t1', 'contents')]);
    chain.assistant('done');
    chain.system('init', { model: 'm' });

    const writer = await store.open('s1', { mode: 'create' });
    await writer.append(chain.records.slice(0, 2));
    await writer.append(chain.records.slice(2));
    await writer.close();

    const raw = await readFile(join(dir, 's1.jsonl'), 'utf8');
    expect(raw.split('\n')).toHaveLength(6); // five lines and the final newline
    const read = await store.read('s1');
    expect(read.warnings).toEqual([]);
    expect(read.records).toEqual(chain.records);
  });

  it('applies concurrent appends in call order', async () => {
    const chain = new ChainBuilder('s1');
    for (let i = 0; i < 40; i++) chain.user(`m${i}`);
    const writer = await store.open('s1', { mode: 'create' });
    await Promise.all(chain.records.map((record) => writer.append([record])));
    await writer.close();
    expect((await store.read('s1')).records.map((r) => r.uuid)).toEqual(chain.records.map((r) => r.uuid));
  });

  it('refuses to create an existing session and to resume a missing one', async () => {
    const writer = await store.open('s1', { mode: 'create' });
    await writer.close();
    await expect(store.open('s1', { mode: 'create' })).rejects.toBeInstanceOf(SessionExistsError);
    await expect(store.open('nope', { mode: 'resume' })).rejects.toBeInstanceOf(SessionNotFoundError);
    await expect(store.read('nope')).rejects.toBeInstanceOf(SessionNotFoundError);
    // A refused open leaves no lock behind.
    expect(existsSync(join(dir, 's1.lock'))).toBe(false);
    expect(existsSync(join(dir, 'nope.lock'))).toBe(false);
  });

  it('rejects session ids that are not safe file names', async () => {
    await expect(store.open('../escape', { mode: 'create' })).rejects.toBeInstanceOf(InvalidSessionIdError);
    await expect(store.read('')).rejects.toBeInstanceOf(InvalidSessionIdError);
  });

  it('refuses a second writer in the same process with SessionLockedError naming this process', async () => {
    const first = await store.open('s1', { mode: 'create' });
    const error = await store.open('s1', { mode: 'resume' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionLockedError);
    expect((error as SessionLockedError).holder?.pid).toBe(process.pid);
    expect((error as SessionLockedError).message).toMatch(/this process/);
    await first.close();
    const again = await store.open('s1', { mode: 'resume' });
    await again.close();
    expect(existsSync(join(dir, 's1.lock'))).toBe(false);
  });

  it('refuses a writer while a real second process holds the session, and recovers once that process is killed', async () => {
    assertBuilt();
    const child = spawnChild(['hold', dir, '/work/project', 's1']);
    try {
      const ready = await child.waitFor(/^ready /);
      const childPid = Number(ready.split(' ')[1]);
      const error = await store.open('s1', { mode: 'resume' }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SessionLockedError);
      expect((error as SessionLockedError).holder?.pid).toBe(childPid);
      await killHard(child);
      // The lock file is still there, but its pid is dead: it is stale and taken over.
      expect(existsSync(join(dir, 's1.lock'))).toBe(true);
      const writer = await store.open('s1', { mode: 'resume' });
      expect(JSON.parse(await readFile(join(dir, 's1.lock'), 'utf8')).pid).toBe(process.pid);
      await writer.close();
    } finally {
      await killHard(child);
    }
  });

  it('a real second process is refused while this process holds the session', async () => {
    assertBuilt();
    const writer = await store.open('s1', { mode: 'create' });
    try {
      const child = spawnChild(['try', dir, '/work/project', 's1']);
      const line = await child.waitFor(/^(opened|error)/);
      expect(line).toBe(`error SessionLockedError ${process.pid}`);
      await child.exited;
    } finally {
      await writer.close();
    }
  });

  it('recovers a stale lock left by a process that no longer exists', async () => {
    const dead = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => dead.once('exit', resolve));
    await (await store.open('s1', { mode: 'create' })).close();
    await writeFile(join(dir, 's1.lock'), JSON.stringify({ pid: dead.pid, processStartedAt: 1, lockedAt: 2 }));
    const writer = await store.open('s1', { mode: 'resume' });
    await writer.close();
  });

  it('treats a fresh unreadable lock as held (it is being written) and an old one as stale', async () => {
    await (await store.open('s1', { mode: 'create' })).close();
    const lock = join(dir, 's1.lock');
    await writeFile(lock, '');
    const error = await store.open('s1', { mode: 'resume' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionLockedError);
    expect((error as SessionLockedError).holder).toBeUndefined();
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    await (await store.open('s1', { mode: 'resume' })).close();
  });

  it('skips a corrupt middle line and a non-record line with warnings naming the line', async () => {
    const chain = new ChainBuilder('s1');
    chain.user('one');
    chain.assistant('two');
    chain.user('three');
    const lines = chain.records.map((r) => JSON.stringify(r));
    const content = [lines[0], '{"uuid": "torn', lines[1], '{"type":"user","hello":1}', lines[2]].join('\n') + '\n';
    await writeFile(join(dir, 's1.jsonl'), content);
    const read = await store.read('s1');
    expect(read.records.map((r) => r.uuid)).toEqual(chain.records.map((r) => r.uuid));
    expect(read.warnings.map((w) => [w.kind, 'line' in w ? w.line : undefined])).toEqual([
      ['invalid_json', 2],
      ['invalid_record', 4],
    ]);
    expect(read.warnings[0]!.message).toMatch(/^line 2: not valid JSON/);
  });

  it('skips a trailing partial line with a warning, and cuts it off when the session is resumed', async () => {
    const chain = new ChainBuilder('s1');
    chain.user('one');
    chain.assistant('two');
    const full = chain.records.map((r) => `${JSON.stringify(r)}\n`).join('');
    const third = JSON.stringify(new ChainBuilder('s1').user('three'));
    await writeFile(join(dir, 's1.jsonl'), full + third.slice(0, 25));

    const read = await store.read('s1');
    expect(read.records).toHaveLength(2);
    expect(read.warnings).toEqual([expect.objectContaining({ kind: 'partial_trailing_line', line: 3 })]);

    const writer = await store.open('s1', { mode: 'resume' });
    const more = new ChainBuilder('s1');
    more.user('four');
    await writer.append(more.records);
    await writer.close();
    expect(await readFile(join(dir, 's1.jsonl'), 'utf8')).toBe(full + `${JSON.stringify(more.records[0])}\n`);
    expect((await store.read('s1')).warnings).toEqual([]);
  });

  it('rejects an invalid record or one of another session without writing anything of the append', async () => {
    const writer = await store.open('s1', { mode: 'create' });
    const good = new ChainBuilder('s1').user('ok');
    const bad = { ...good, timestamp: 'yesterday' };
    await expect(writer.append([good, bad as never])).rejects.toBeInstanceOf(InvalidSessionRecordError);
    const foreign = new ChainBuilder('other').user('x');
    await expect(writer.append([foreign])).rejects.toThrow(/belongs to session "other"/);
    await writer.append([good]); // the writer is still usable
    await writer.close();
    expect((await store.read('s1')).records).toEqual([good]);
    await expect(writer.append([good])).rejects.toBeInstanceOf(SessionClosedError);
  });

  it.skipIf(!existsSync('/dev/full'))('refuses a transcript that is a symlink to a device (/dev/full) before writing anything', async () => {
    // This test used such a link to fake a full disk; a transcript that is not a regular file is
    // now refused at open (test/security/sessionSafety.test.ts), which also ends that trick.
    await symlink('/dev/full', join(dir, 's1.jsonl'));
    const error = await store.open('s1', { mode: 'resume' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionFileTypeError);
    expect(existsSync(join(dir, 's1.lock'))).toBe(false);
  });

  it.skipIf(process.getuid?.() === 0)('turns a permission error into a SessionWriteError (EACCES)', async () => {
    await (await store.open('s1', { mode: 'create' })).close();
    await chmod(join(dir, 's1.jsonl'), 0o444);
    const error = await store.open('s1', { mode: 'resume' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SessionWriteError);
    expect((error as SessionWriteError).code).toBe('EACCES');
  });

  it('lists sessions newest first', async () => {
    for (const id of ['a', 'b', 'c']) await (await store.open(id, { mode: 'create' })).close();
    const at = (s: number) => new Date(Date.parse('2026-01-01T00:00:00Z') + s * 1000);
    await utimes(join(dir, 'a.jsonl'), at(2), at(2));
    await utimes(join(dir, 'b.jsonl'), at(3), at(3));
    await utimes(join(dir, 'c.jsonl'), at(1), at(1));
    expect((await store.list()).map((s) => s.sessionId)).toEqual(['b', 'a', 'c']);
    expect(await createJsonlSessionStore({ dir: join(dir, 'missing'), workspace: '/x' }).list()).toEqual([]);
  });

  it('defaults to ~/.rxagent/projects/<slug of the absolute workspace path>', () => {
    expect(workspaceSlug('/home/me/my project.v2')).toMatch(/^-home-me-my-project-v2_[0-9a-f]{16}$/);
    expect(workspaceSlug('/home/me/project2')).toBe('-home-me-project2');
    expect(defaultSessionDir('/w')).toBe(join(homedir(), '.rxagent', 'projects', '-w'));
    expect(createJsonlSessionStore({ workspace: '/w' }).dir).toBe(join(homedir(), '.rxagent', 'projects', '-w'));
  });
});
