import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { globTool } from '../../src/tools/builtin/glob.js';
import { grepTool } from '../../src/tools/builtin/grep.js';
import { createWorkspace, type Workspace } from '../../src/tools/builtin/workspace.js';
import { makeTempDir, runTool } from './helpers.js';

let root: string;
let work: string;
let cleanup: () => Promise<void>;
let ws: Workspace;

async function put(rel: string, content: string | Buffer, ageSeconds = 0) {
  const path = join(work, rel);
  await mkdir(join(path, '..'), { recursive: true });
  await writeFile(path, content);
  const t = new Date(Date.now() - ageSeconds * 1000);
  await utimes(path, t, t);
}

beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir());
  work = join(root, 'work');
  await mkdir(work);
  await mkdir(join(root, 'outside'));
  await writeFile(join(root, 'outside', 'leak.ts'), 'needle outside\n');
  await put('src/a.ts', 'export const needle = 1;\nconst other = 2;\n', 30);
  await put('src/deep/b.ts', 'line1\nline2\nNEEDLE here\nline4\nline5\nline6\nneedle again\n', 20);
  await put('src/c.js', 'no match\n', 10);
  await put('README.md', 'needle in docs\n', 40);
  await put('node_modules/pkg/index.ts', 'needle in deps\n');
  await put('.git/config', 'needle in git\n');
  await put('image.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65]));
  await symlink(join(root, 'outside'), join(work, 'escape'));
  await symlink(join(root, 'outside', 'leak.ts'), join(work, 'leak.ts'));
  ws = createWorkspace({ cwd: work });
});
afterEach(() => cleanup());

const glob = (input: object, max?: number) => runTool(globTool(ws, max === undefined ? {} : { maxResults: max }), input);
const grep = (input: object) => runTool(grepTool(ws), input);

describe('Glob', () => {
  test('matches recursively, newest first, skipping node_modules, .git and links out', async () => {
    const out = await glob({ pattern: '**/*.ts' });
    expect(out.split('\n')).toEqual([join(work, 'src/deep/b.ts'), join(work, 'src/a.ts')]);
  });

  test('a pattern without ** stays at its depth; path narrows the search', async () => {
    expect(await glob({ pattern: '*.md' })).toBe(join(work, 'README.md'));
    expect(await glob({ pattern: '*.ts', path: 'src' })).toBe(join(work, 'src/a.ts'));
    expect(await glob({ pattern: '*.{ts,js}', path: 'src' })).toBe([join(work, 'src/c.js'), join(work, 'src/a.ts')].join('\n'));
  });

  test('node_modules is searched when the pattern names it', async () => {
    expect(await glob({ pattern: 'node_modules/**/*.ts' })).toBe(join(work, 'node_modules/pkg/index.ts'));
  });

  test('caps the results with a note', async () => {
    const out = await glob({ pattern: '**/*' }, 2);
    expect(out.split('\n').slice(0, 2)).toHaveLength(2);
    expect(out).toMatch(/more results not shown/);
  });

  test('no match, a path outside, and a missing path are reported', async () => {
    expect(await glob({ pattern: '**/*.rs' })).toMatch(/No files match/);
    await expect(glob({ pattern: '*', path: '..' })).rejects.toThrow(/outside the workspace/);
    await expect(glob({ pattern: '*', path: 'escape' })).rejects.toThrow(/outside the workspace/);
    await expect(glob({ pattern: '*', path: 'nowhere' })).rejects.toThrow(/not a directory/);
  });
});

describe('Grep', () => {
  test('files_with_matches by default, skipping binary, .git, node_modules and links out', async () => {
    expect(await grep({ pattern: 'needle' })).toBe('README.md\nsrc/a.ts\nsrc/deep/b.ts');
  });

  test('-i, glob filter and a path', async () => {
    expect(await grep({ pattern: 'NEEDLE' })).toBe('src/deep/b.ts');
    expect(await grep({ pattern: 'NEEDLE', '-i': true, glob: '*.ts' })).toBe('src/a.ts\nsrc/deep/b.ts');
    expect(await grep({ pattern: 'needle', glob: 'src/**/*.ts' })).toBe('src/a.ts\nsrc/deep/b.ts');
    expect(await grep({ pattern: 'needle', path: 'src/deep' })).toBe('src/deep/b.ts');
    expect(await grep({ pattern: 'needle', path: 'src/a.ts' })).toBe('src/a.ts');
  });

  test('content mode with line numbers and context', async () => {
    expect(await grep({ pattern: 'needle', output_mode: 'content', path: 'src' })).toBe(
      'src/a.ts:1:export const needle = 1;\nsrc/deep/b.ts:7:needle again',
    );
    expect(await grep({ pattern: 'needle', output_mode: 'content', path: 'src/deep', '-i': true, '-C': 1 })).toBe(
      ['src/deep/b.ts-2-line2', 'src/deep/b.ts:3:NEEDLE here', 'src/deep/b.ts-4-line4', '--', 'src/deep/b.ts-6-line6', 'src/deep/b.ts:7:needle again'].join('\n'),
    );
    expect(await grep({ pattern: 'here', output_mode: 'content', path: 'src', '-n': false, '-B': 2 })).toBe(
      'src/deep/b.ts-line1\nsrc/deep/b.ts-line2\nsrc/deep/b.ts:NEEDLE here',
    );
  });

  test('count mode and head_limit', async () => {
    expect(await grep({ pattern: 'needle', output_mode: 'count', '-i': true })).toBe(
      'README.md:1\nsrc/a.ts:1\nsrc/deep/b.ts:2\n[4 matches in 3 files]',
    );
    const limited = await grep({ pattern: 'needle', '-i': true, output_mode: 'content', head_limit: 2 });
    expect(limited.split('\n').slice(0, 2)).toEqual(['README.md:1:needle in docs', 'src/a.ts:1:export const needle = 1;']);
    expect(limited).toMatch(/head_limit 2/);
  });

  test('node_modules is searched when path points into it', async () => {
    expect(await grep({ pattern: 'needle', path: 'node_modules' })).toBe('node_modules/pkg/index.ts');
  });

  test('patterns run on RE2: lookaround and backreferences are refused with the reason, as are invalid ones', async () => {
    expect(await grep({ pattern: 'needle( again)', output_mode: 'content' })).toBe('src/deep/b.ts:7:needle again');
    await expect(grep({ pattern: 'needle(?= again)' })).rejects.toThrow(/Invalid regular expression.*no lookaround/);
    await expect(grep({ pattern: '(a)\\1' })).rejects.toThrow(/Invalid regular expression.*RE2 syntax/);
    await expect(grep({ pattern: 'a(b' })).rejects.toThrow(/Invalid regular expression.*RE2 syntax/);
  });

  test('output is capped with a note, and the search stops once over the cap', async () => {
    for (let i = 0; i < 40; i++) await put(`many/f${String(i).padStart(2, '0')}.txt`, `${'match this line\n'.repeat(100)}`);
    const out = await grep({ pattern: 'match', output_mode: 'content', path: 'many' });
    expect(out.length).toBeLessThan(31_000);
    expect(out).toMatch(/\[Output cut at 30000 characters\. Narrow the search/);
    expect(out).toContain('many/f00.txt:1:match this line');
    expect(out).not.toContain('many/f39.txt');
  });

  test('an aborted call stops (Grep and Glob)', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(runTool(grepTool(ws), { pattern: 'needle' }, controller.signal)).rejects.toThrow(/abort/i);
    await expect(runTool(globTool(ws), { pattern: '**/*' }, controller.signal)).rejects.toThrow(/abort/i);
  });

  test('no matches, paths outside and missing paths', async () => {
    expect(await grep({ pattern: 'zzz' })).toMatch(/No matches/);
    await expect(grep({ pattern: 'x', path: '../outside' })).rejects.toThrow(/outside the workspace/);
    await expect(grep({ pattern: 'x', path: 'leak.ts' })).rejects.toThrow(/outside the workspace/);
    await expect(grep({ pattern: 'x', path: 'gone' })).rejects.toThrow(/does not exist/);
  });

  test('a match across a 64 KB chunk boundary is found with the right line number', async () => {
    const filler = 'x'.repeat(99) + '\n'; // 100 bytes a line
    const body = filler.repeat(655) + 'abc' + 'needle-split\n' + filler;
    await put('big.txt', body);
    expect(await grep({ pattern: 'abcneedle-split', output_mode: 'content', path: 'big.txt' })).toBe('big.txt:656:abcneedle-split');
  });

  test('line numbers stay right over blank lines spanning several chunks, with and without context', async () => {
    await put('blank.txt', `${'\n'.repeat(70_000)}needle\n\nlast needle`);
    expect(await grep({ pattern: 'needle', output_mode: 'content', path: 'blank.txt' })).toBe('blank.txt:70001:needle\nblank.txt:70003:last needle');
    expect(await grep({ pattern: 'needle', output_mode: 'content', path: 'blank.txt', '-B': 1 })).toBe(
      'blank.txt-70000-\nblank.txt:70001:needle\nblank.txt-70002-\nblank.txt:70003:last needle',
    );
    expect(await grep({ pattern: 'needle', output_mode: 'count', path: 'blank.txt' })).toBe('blank.txt:2\n[2 matches in 1 files]');
  });
});
