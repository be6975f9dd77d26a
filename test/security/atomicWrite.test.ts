/**
 * Write and Edit replace files atomically: a temp file in the same directory, fsync, rename over.
 * A full disk (a real one: a 256 KiB tmpfs mounted by bubblewrap in a private mount namespace)
 * leaves the original intact with a typed error; modes survive; hard links and swapped-in
 * symlinks are refused; no temp file is ever left behind.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmod, link, mkdir, readdir, readFile, rename, stat, symlink, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { DiskFullError, writeFileAtomic } from '../../src/tools/builtin/atomicWrite.js';
import { editTool } from '../../src/tools/builtin/edit.js';
import { readTool } from '../../src/tools/builtin/read.js';
import { createWorkspace, ToolRefusal, type Workspace } from '../../src/tools/builtin/workspace.js';
import { writeTool } from '../../src/tools/builtin/write.js';
import { assertBuilt } from '../cli/helpers.js';
import { makeTempDir, runTool } from '../builtin/helpers.js';

let root: string;
let work: string;
let outside: string;
let cleanup: () => Promise<void>;
let ws: Workspace;

beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir('rxagent-sec-atomic-'));
  work = join(root, 'work');
  outside = join(root, 'outside');
  await mkdir(work);
  await mkdir(outside);
  ws = createWorkspace({ cwd: work });
});
afterEach(() => cleanup());

const read = (input: object) => runTool(readTool(ws), input);
const write = (input: object) => runTool(writeTool(ws), input);
const edit = (input: object) => runTool(editTool(ws), input);

describe('the replacement keeps what it should', () => {
  test('Write and Edit keep the mode (setuid-free bits, executable), and leave no temp file', async () => {
    const path = join(work, 'run.sh');
    await writeFile(path, '#!/bin/sh\necho old\n');
    await chmod(path, 0o751);
    await read({ file_path: 'run.sh' });
    await write({ file_path: 'run.sh', content: '#!/bin/sh\necho new\n' });
    expect((await stat(path)).mode & 0o7777).toBe(0o751);
    await edit({ file_path: 'run.sh', old_string: 'new', new_string: 'newer' });
    expect((await stat(path)).mode & 0o7777).toBe(0o751);
    expect(await readFile(path, 'utf8')).toBe('#!/bin/sh\necho newer\n');
    expect(await readdir(work)).toEqual(['run.sh']);
  });

  test('a new file gets the usual mode (0666 less the umask)', async () => {
    await write({ file_path: 'new.txt', content: 'x' });
    const umask = process.umask();
    expect((await stat(join(work, 'new.txt'))).mode & 0o777).toBe(0o666 & ~umask);
  });
});

describe('what is not written through', () => {
  test('a file with a second hard link (here: outside the workspace) is refused by Write and Edit; both names keep their content', async () => {
    const inside = join(work, 'shared.txt');
    await writeFile(inside, 'original\n');
    await link(inside, join(outside, 'also-me.txt'));
    await read({ file_path: 'shared.txt' });
    await expect(write({ file_path: 'shared.txt', content: 'changed\n' })).rejects.toThrow(/2 hard links/);
    await expect(edit({ file_path: 'shared.txt', old_string: 'original', new_string: 'changed' })).rejects.toThrow(/hard link/);
    expect(await readFile(inside, 'utf8')).toBe('original\n');
    expect(await readFile(join(outside, 'also-me.txt'), 'utf8')).toBe('original\n');
    expect(await readdir(work)).toEqual(['shared.txt']);
  });

  test('a target swapped for a symlink after it was resolved is refused, the link target untouched', async () => {
    const path = join(work, 'victim.txt');
    await writeFile(join(outside, 'target.txt'), 'outside\n');
    await symlink(join(outside, 'target.txt'), path);
    await expect(writeFileAtomic(path, 'pwned\n', { contains: ws.contains })).rejects.toThrow(/symbolic link/);
    expect(await readFile(join(outside, 'target.txt'), 'utf8')).toBe('outside\n');
  });

  test('a directory swapped for a link to outside between the check and the write: nothing lands outside', async () => {
    await mkdir(join(work, 'dir'));
    const checked = await ws.resolveInside('dir/new.txt');
    await rename(join(work, 'dir'), join(work, 'dir-moved'));
    await symlink(outside, join(work, 'dir'));
    await expect(writeFileAtomic(checked, 'pwned\n', { contains: ws.contains })).rejects.toThrow(ToolRefusal);
    expect(await readdir(outside)).toEqual([]);
  });

  test('a FIFO or a directory as target is refused without blocking', async () => {
    execFileSync('mkfifo', [join(work, 'pipe')]);
    await expect(writeFileAtomic(join(work, 'pipe'), 'x', { contains: ws.contains })).rejects.toThrow(/not a regular file/);
    await mkdir(join(work, 'd'));
    await expect(writeFileAtomic(join(work, 'd'), 'x', { contains: ws.contains })).rejects.toThrow(/not a regular file/);
  });
});

/* A real full disk: bubblewrap mounts a 256 KiB tmpfs in a private mount namespace (no root
 * mount needed on the host, nothing left behind). Skipped, saying so, where bwrap cannot run. */
const bwrapWorks = spawnSync('bwrap', ['--dev-bind', '/', '/', '--size', '65536', '--tmpfs', '/mnt', 'true']).status === 0;
if (!bwrapWorks) console.warn('full-disk tests skipped: bwrap cannot mount a sized tmpfs here (bubblewrap >= 0.5 with user namespaces needed)');

describe.runIf(bwrapWorks)('a full disk loses nothing', () => {
  test('Write and Edit on a full tmpfs: DiskFullError, the original intact, no temp file left', async () => {
    assertBuilt();
    const dist = resolve('dist/src/tools/builtin');
    const disk = join(root, 'disk');
    await mkdir(disk);
    const script = `
      const fs = require('node:fs');
      const { join } = require('node:path');
      (async () => {
        const { createWorkspace } = await import(${JSON.stringify(`${dist}/workspace.js`)});
        const { readTool } = await import(${JSON.stringify(`${dist}/read.js`)});
        const { writeTool } = await import(${JSON.stringify(`${dist}/write.js`)});
        const { editTool } = await import(${JSON.stringify(`${dist}/edit.js`)});
        const disk = ${JSON.stringify(disk)};
        const original = 'ORIGINAL line\\n'.repeat(2000);
        fs.writeFileSync(join(disk, 'src.txt'), original);
        const ws = createWorkspace({ cwd: disk });
        const ctx = { signal: new AbortController().signal, toolUseId: 't', shared: {}, progress() {} };
        await readTool(ws).call({ file_path: 'src.txt' }, ctx);
        // Fill what is left of the disk.
        const filler = fs.openSync(join(disk, 'filler'), 'w');
        const block = Buffer.alloc(4096, 1);
        try { for (;;) fs.writeSync(filler, block); } catch (e) { if (e.code !== 'ENOSPC') throw e; }
        fs.closeSync(filler);
        const outcome = async (call) => { try { await call; return { ok: true }; } catch (e) { return { name: e.name, code: e.code, message: e.message }; } };
        const write = await outcome(writeTool(ws).call({ file_path: 'src.txt', content: 'NEW line\\n'.repeat(20000) }, ctx));
        const edited = await outcome(editTool(ws).call({ file_path: 'src.txt', old_string: 'ORIGINAL', new_string: 'CHANGED-'.repeat(4000), replace_all: true }, ctx));
        const created = await outcome(writeTool(ws).call({ file_path: 'brand-new.txt', content: 'x'.repeat(100000) }, ctx));
        console.log(JSON.stringify({ write, edited, created, intact: fs.readFileSync(join(disk, 'src.txt'), 'utf8') === original, files: fs.readdirSync(disk).sort() }));
      })().catch((e) => { console.error(e); process.exit(1); });
    `;
    const out = execFileSync('bwrap', ['--dev-bind', '/', '/', '--size', String(256 * 1024), '--tmpfs', disk, process.execPath, '-e', script], {
      encoding: 'utf8',
    });
    const result = JSON.parse(out.trim().split('\n').pop()!) as Record<string, { name?: string; code?: string; message?: string }> & {
      intact: boolean;
      files: string[];
    };
    expect(result.write).toMatchObject({ name: 'DiskFullError', code: 'ENOSPC' });
    expect(result.write?.message).toMatch(/disk is full.*Nothing was changed/);
    expect(result.edited).toMatchObject({ name: 'DiskFullError', code: 'ENOSPC' });
    expect(result.created).toMatchObject({ name: 'DiskFullError', code: 'ENOSPC' });
    expect(result.intact).toBe(true);
    expect(result.files).toEqual(['filler', 'src.txt']);
  }, 120_000);

  test('DiskFullError says what happened and that nothing changed', () => {
    const error = new DiskFullError('/w/a.txt', 'EDQUOT');
    expect(error.name).toBe('DiskFullError');
    expect(error.message).toMatch(/quota.*EDQUOT.*Nothing was changed/);
  });
});
