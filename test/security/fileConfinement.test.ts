/**
 * Every file tool stays inside the workspace roots whatever path the model invents, and a
 * symlink planted between the check and the write cannot redirect it.
 */
import { mkdir, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { editTool } from '../../src/tools/builtin/edit.js';
import { globTool } from '../../src/tools/builtin/glob.js';
import { grepTool } from '../../src/tools/builtin/grep.js';

import { createWorkspace, ToolRefusal, type Workspace } from '../../src/tools/builtin/workspace.js';
import { writeTool } from '../../src/tools/builtin/write.js';
import { boundedLines, readTool } from '../../src/tools/builtin/read.js';
import { makeTempDir, runTool } from '../builtin/helpers.js';

let root: string;
let work: string;
let outside: string;
let home: string;
let cleanup: () => Promise<void>;
let ws: Workspace;

beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir('rxagent-sec-files-'));
  work = join(root, 'work');
  outside = join(root, 'outside');
  home = join(root, 'home');
  await mkdir(join(work, 'src'), { recursive: true });
  await mkdir(outside);
  await mkdir(join(home, '.ssh'), { recursive: true });
  await writeFile(join(outside, 'secret.txt'), 'SECRET outside\n');
  await writeFile(join(home, '.ssh', 'id_rsa'), 'SECRET key\n');
  await writeFile(join(work, 'src', 'a.txt'), 'hello SECRET-free\n');
  ws = createWorkspace({ cwd: work, homeDir: home });
});
afterEach(() => cleanup());

const read = (input: object) => runTool(readTool(ws), input);
const write = (input: object) => runTool(writeTool(ws), input);
const edit = (input: object) => runTool(editTool(ws), input);
const glob = (input: object) => runTool(globTool(ws), input);
const grep = (input: object) => runTool(grepTool(ws), input);

async function outsideUntouched() {
  expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('SECRET outside\n');
  expect(await readFile(join(home, '.ssh', 'id_rsa'), 'utf8')).toBe('SECRET key\n');
  await expect(stat(join(outside, 'new.txt'))).rejects.toThrow(/ENOENT/);
}

const escapes = (): string[] => [
  '../outside/secret.txt',
  'src/../../outside/secret.txt',
  join(outside, 'secret.txt'),
  '~/.ssh/id_rsa',
  '~',
  '/etc/passwd',
  `${work}/../outside/secret.txt`,
  '/proc/self/environ',
];

describe('Read/Write/Edit refuse every escape', () => {
  test('traversal, absolute, ~ and /proc', async () => {
    for (const p of escapes()) {
      await expect(read({ file_path: p }), p).rejects.toThrow(ToolRefusal);
      await expect(write({ file_path: p, content: 'pwned' }), p).rejects.toThrow(ToolRefusal);
      await expect(edit({ file_path: p, old_string: 'SECRET', new_string: 'pwned' }), p).rejects.toThrow(ToolRefusal);
    }
    await expect(write({ file_path: '../outside/new.txt', content: 'x' })).rejects.toThrow(/outside the workspace/);
    await outsideUntouched();
  });

  test('symlinks out: file, directory, dangling, chained, link/.. tricks', async () => {
    await symlink(join(outside, 'secret.txt'), join(work, 'file-link'));
    await symlink(outside, join(work, 'dir-link'));
    await symlink(join(outside, 'new.txt'), join(work, 'dangling'));
    await symlink(join(work, 'dir-link'), join(work, 'chain'));
    await symlink(join(home, '.ssh'), join(work, 'ssh'));
    for (const p of ['file-link', 'dir-link/secret.txt', 'dangling', 'chain/secret.txt', 'chain/new.txt', 'ssh/../.ssh/id_rsa', 'ssh/id_rsa']) {
      await expect(read({ file_path: p }), p).rejects.toThrow(ToolRefusal);
      await expect(write({ file_path: p, content: 'pwned' }), p).rejects.toThrow(ToolRefusal);
      await expect(edit({ file_path: p, old_string: 'SECRET', new_string: 'pwned' }), p).rejects.toThrow(ToolRefusal);
    }
    await outsideUntouched();
  });

  test('NUL bytes, very long paths, backslashes and Unicode look-alikes never leave the workspace', async () => {
    await expect(read({ file_path: 'src/a.txt\0../../outside/secret.txt' })).rejects.toThrow(/NUL/);
    await expect(write({ file_path: '../outside/new.txt\0', content: 'x' })).rejects.toThrow(ToolRefusal);
    await expect(read({ file_path: `${'a/'.repeat(3000)}x` })).rejects.toThrow(/does not exist|ENAMETOOLONG/);
    await expect(write({ file_path: `${'b'.repeat(5000)}.txt`, content: 'x' })).rejects.toThrow(/ENAMETOOLONG/);
    // On POSIX a backslash is an ordinary character: this is one odd file name inside the workspace.
    expect(await write({ file_path: '..\\..\\outside\\new.txt', content: 'x' })).toMatch(/Created/);
    expect(await readFile(join(work, '..\\..\\outside\\new.txt'), 'utf8')).toBe('x');
    // Fullwidth dots and slash, and a right-to-left override, are plain name characters too.
    for (const odd of ['\uff0e\uff0e\uff0foutside\uff0fnew.txt', 'a\u202e.txt', '..\u2215outside\u2215new.txt']) {
      expect(await write({ file_path: odd, content: 'x' }), odd).toMatch(/Created/);
      expect(await readFile(join(work, odd), 'utf8')).toBe('x');
    }
    await outsideUntouched();
  });
});

describe('a symlink planted after the check is not followed (TOCTOU)', () => {
  test('the final component turned into a link: O_NOFOLLOW refuses', async () => {
    const target = join(work, 'victim.txt');
    const checked = await ws.resolveInside('victim.txt');
    await symlink(join(outside, 'secret.txt'), target);
    await expect(ws.openInside(checked, 'create')).rejects.toThrow(/symbolic link/);
    await expect(ws.openInside(checked, 'read')).rejects.toThrow(/symbolic link/);
    await outsideUntouched();
  });

  test('a parent directory swapped for a link: the opened descriptor is checked and refused', async () => {
    await mkdir(join(work, 'dir'));
    await writeFile(join(work, 'dir', 'secret.txt'), 'mine\n');
    const checked = await ws.resolveInside('dir/secret.txt');
    await rename(join(work, 'dir'), join(work, 'dir-moved'));
    await symlink(outside, join(work, 'dir'));
    await expect(ws.openInside(checked, 'write')).rejects.toThrow(/outside the workspace/);
    await expect(ws.openInside(checked, 'read')).rejects.toThrow(/outside the workspace/);
    await outsideUntouched();
  });

  test('Write into a directory that becomes a link after resolve goes nowhere outside', async () => {
    await mkdir(join(work, 'd'));
    const checked = await ws.resolveInside('d/new.txt');
    await rm(join(work, 'd'), { recursive: true });
    await symlink(outside, join(work, 'd'));
    await expect(ws.openInside(checked, 'create')).rejects.toThrow(ToolRefusal);
    // The open created the file before the check refused it; it must at least be empty.
    const created = await readFile(join(outside, 'new.txt'), 'utf8').catch(() => '');
    expect(created).toBe('');
    await rm(join(outside, 'new.txt'), { force: true });
    await outsideUntouched();
  });
});

describe('Glob and Grep never list or read outside the roots', () => {
  beforeEach(async () => {
    await symlink(outside, join(work, 'src', 'dir-link'));
    await symlink(join(outside, 'secret.txt'), join(work, 'src', 'file-link.txt'));
    await symlink(join(home, '.ssh', 'id_rsa'), join(work, 'key-link'));
  });

  test('path outside is refused in both', async () => {
    for (const p of escapes()) {
      await expect(glob({ pattern: '*', path: p }), p).rejects.toThrow(ToolRefusal);
      await expect(grep({ pattern: 'SECRET', path: p }), p).rejects.toThrow(ToolRefusal);
    }
    await expect(glob({ pattern: '*', path: 'src/dir-link' })).rejects.toThrow(ToolRefusal);
    await expect(grep({ pattern: 'SECRET', path: 'src/dir-link' })).rejects.toThrow(ToolRefusal);
    await expect(grep({ pattern: 'SECRET', path: 'src/file-link.txt' })).rejects.toThrow(ToolRefusal);
  });

  test('patterns and globs cannot climb out, and symlinks inside are not followed out', async () => {
    const listed = [
      await glob({ pattern: '**/*' }),
      await glob({ pattern: '../**/*' }),
      await glob({ pattern: '../outside/*' }),
      await glob({ pattern: '**/secret.txt' }),
      await glob({ pattern: '**/id_rsa' }),
      await glob({ pattern: 'src/dir-link/*' }),
    ].join('\n');
    expect(listed).not.toMatch(/outside\/secret|\.ssh|dir-link\/secret/);
    await expect(glob({ pattern: join(outside, '*') })).rejects.toThrow(/outside/);
    for (const output_mode of ['content', 'files_with_matches', 'count'] as const) {
      for (const globArg of [undefined, '**/*', '../**/*', '../outside/*', '*.txt', 'dir-link/*']) {
        const out = await grep({ pattern: 'SECRET', output_mode, ...(globArg ? { glob: globArg } : {}) });
        expect(out, `${output_mode} ${globArg}`).not.toMatch(/SECRET outside|SECRET key|file-link|key-link|dir-link/);
      }
    }
  });
});

describe('special files inside the workspace', () => {
  test('a FIFO is refused at once for Read and Write instead of hanging', async () => {
    const { execFileSync } = await import('node:child_process');
    execFileSync('mkfifo', [join(work, 'pipe')]);
    // No elapsed-time bound: a tool blocked on the FIFO never settles, so vitest's hang bound fails it.
    await expect(read({ file_path: 'pipe' })).rejects.toThrow(/not a regular file|FIFO/);
    await expect(ws.openInside(join(work, 'pipe'), 'write')).rejects.toThrow(/not a regular file|FIFO/);
    await expect(grep({ pattern: 'x', path: 'pipe' })).rejects.toThrow(/not a regular file/);
    expect(await grep({ pattern: 'hello' })).toContain('src/a.txt'); // the walk skips the FIFO
  });
});

describe('Read keeps memory bounded on a line without end', () => {
  test('boundedLines splits like readline (\\n, \\r\\n, \\r) at any chunking', async () => {
    const fc = await import('fast-check');
    const reference = (text: string, keep: number) => {
      const parts = text.split(/\r\n|\n|\r/);
      if (parts[parts.length - 1] === '') parts.pop();
      return parts.map((p) => p.slice(0, keep));
    };
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('a', 'b', '\n', '\r', '\r\n', 'é', '😀'), { maxLength: 60 }).map((xs) => xs.join('')),
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 10 }),
        fc.integer({ min: 1, max: 5 }),
        async (text, cuts, keep) => {
          const chunks: string[] = [];
          for (let at = 0, k = 0; at < text.length; k++) {
            const size = cuts[k % cuts.length]!;
            chunks.push(text.slice(at, at + size));
            at += size;
          }
          async function* feed() {
            yield* chunks;
          }
          const got: string[] = [];
          for await (const line of boundedLines(feed(), keep)) got.push(line);
          expect(got).toEqual(reference(text, keep));
        },
      ),
      { numRuns: 300 },
    );
  });

  test('100 MB without a newline: only the kept prefix is ever held', async () => {
    const piece = 'q'.repeat(1 << 20);
    async function* huge() {
      for (let i = 0; i < 100; i++) yield piece;
    }
    const lines: string[] = [];
    for await (const line of boundedLines(huge(), 2001)) lines.push(line);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.length).toBe(2001);
  });

  test('Read of a 30 MB one-line file shows the cut line', async () => {
    const { open } = await import('node:fs/promises');
    const file = await open(join(work, 'oneline.txt'), 'w');
    const block = Buffer.alloc(1 << 20, 0x7a);
    for (let i = 0; i < 30; i++) await file.write(block);
    await file.close();
    const out = await read({ file_path: 'oneline.txt' });
    expect(out).toMatch(/^1\tz{2000}… \[line cut at 2000 characters\]/);
    expect(out.length).toBeLessThan(3000);
  });
});
