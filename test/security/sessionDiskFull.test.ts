/**
 * A transcript append on a full disk. A real one: bubblewrap mounts a 256 KiB tmpfs in a private
 * mount namespace over the session folder, and a child process runs the built store (dist/) on
 * it. What must hold: the failing append rejects with a typed SessionWriteError (code ENOSPC,
 * "the disk is full"), the writer refuses every later append with that same error (a torn line
 * must not get records after it), every append acknowledged before is still in the transcript,
 * and once there is room again the session resumes (the torn tail cut off) and takes appends.
 * Skipped, saying so, where bwrap cannot mount a sized tmpfs.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { assertBuilt } from '../cli/helpers.js';
import { makeTempDir } from '../builtin/helpers.js';

const bwrapWorks = spawnSync('bwrap', ['--dev-bind', '/', '/', '--size', '65536', '--tmpfs', '/mnt', 'true']).status === 0;
if (!bwrapWorks) console.warn('session full-disk test skipped: bwrap cannot mount a sized tmpfs here (bubblewrap >= 0.5 with user namespaces needed)');

let root: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir: root, cleanup } = await makeTempDir('rxagent-sec-session-full-')));
afterEach(() => cleanup());

interface Failure {
  readonly name?: string;
  readonly type?: string;
  readonly code?: string;
  readonly message?: string;
}

describe.runIf(bwrapWorks)('a transcript append on a full disk loses nothing', () => {
  test('typed SessionWriteError, the writer closed to appends, every acknowledged record kept, resumable once there is room', async () => {
    assertBuilt();
    const store = resolve('dist/src/session/jsonlSessionStore.js');
    const disk = join(root, 'disk');
    await mkdir(disk);
    const script = `
      const fs = require('node:fs');
      const { join } = require('node:path');
      const { randomUUID } = require('node:crypto');
      (async () => {
        const { createJsonlSessionStore } = await import(${JSON.stringify(store)});
        const disk = ${JSON.stringify(disk)};
        const sessionId = 'full-1';
        const store = createJsonlSessionStore({ dir: join(disk, 'sessions'), workspace: '/work/project' });
        let parentUuid = null;
        const record = (type, text) => {
          const uuid = randomUUID();
          const r = { uuid, parentUuid, sessionId, timestamp: new Date().toISOString(), cwd: '/work/project', version: 'test', type,
            message: type === 'user' ? { role: 'user', content: text } : { role: 'assistant', content: [{ type: 'text', text }] } };
          parentUuid = uuid;
          return r;
        };
        const failure = async (p) => { try { await p; return null; } catch (e) { return { name: e.name, type: e.type, code: e.code, message: e.message }; } };
        const writer = await store.open(sessionId, { mode: 'create' });
        const acked = [];
        for (const [type, text] of [['user', 'first prompt'], ['assistant', 'first answer'], ['user', 'second prompt']]) {
          const r = record(type, text);
          await writer.append([r]);
          acked.push(r.uuid);
        }
        // Fill what is left of the disk.
        const filler = fs.openSync(join(disk, 'filler'), 'w');
        const block = Buffer.alloc(4096, 1);
        try { for (;;) fs.writeSync(filler, block); } catch (e) { if (e.code !== 'ENOSPC') throw e; }
        fs.closeSync(filler);
        const big = await failure(writer.append([record('assistant', 'BIG '.repeat(50000))]));
        const after = await failure(writer.append([record('user', 'after the failure')]));
        const closeFailure = await failure(writer.close());
        // Room again: the transcript must still hold every acknowledged record, and resume.
        fs.rmSync(join(disk, 'filler'));
        const read = await store.read(sessionId);
        const resumed = await store.open(sessionId, { mode: 'resume' });
        const next = record('user', 'after resume');
        const resumedFailure = await failure(resumed.append([next]));
        await resumed.close();
        const reread = await store.read(sessionId);
        console.log(JSON.stringify({
          acked, big, after, closeFailure, resumedFailure, next: next.uuid,
          stored: read.records.map((r) => r.uuid), warnings: read.warnings.map((w) => w.kind),
          restored: reread.records.map((r) => r.uuid), rewarnings: reread.warnings.map((w) => w.kind),
        }));
      })().catch((e) => { console.error(e); process.exit(1); });
    `;
    const out = execFileSync('bwrap', ['--dev-bind', '/', '/', '--size', String(256 * 1024), '--tmpfs', disk, process.execPath, '-e', script], { encoding: 'utf8' });
    const result = JSON.parse(out.trim().split('\n').pop()!) as {
      acked: string[];
      big: Failure | null;
      after: Failure | null;
      closeFailure: Failure | null;
      resumedFailure: Failure | null;
      next: string;
      stored: string[];
      warnings: string[];
      restored: string[];
      rewarnings: string[];
    };
    expect(result.big).toMatchObject({ name: 'SessionWriteError', type: 'write_failed', code: 'ENOSPC' });
    expect(result.big?.message).toMatch(/ENOSPC: the disk is full/);
    // The same failure again: nothing is appended after a possibly torn line.
    expect(result.after).toEqual(result.big);
    expect(result.closeFailure).toBeNull();
    // Every acknowledged append is there; at most the torn tail of the failed one is reported.
    expect(result.stored).toEqual(result.acked);
    expect(result.warnings.every((kind) => kind === 'partial_trailing_line')).toBe(true);
    // Resumed once there is room: the torn tail is cut, the new record follows the old ones.
    expect(result.resumedFailure).toBeNull();
    expect(result.restored).toEqual([...result.acked, result.next]);
    expect(result.rewarnings).toEqual([]);
  }, 120_000);
});
