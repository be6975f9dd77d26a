import { mkdir, readFile, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { editTool } from '../../src/tools/builtin/edit.js';
import { readTool } from '../../src/tools/builtin/read.js';
import { createWorkspace, ToolRefusal, type Workspace } from '../../src/tools/builtin/workspace.js';
import { writeTool } from '../../src/tools/builtin/write.js';
import { makeTempDir, runTool } from './helpers.js';

let root: string;
let work: string;
let outside: string;
let cleanup: () => Promise<void>;
let ws: Workspace;

beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir());
  work = join(root, 'work');
  outside = join(root, 'outside');
  await mkdir(work);
  await mkdir(outside);
  await writeFile(join(outside, 'secret.txt'), 'top secret\n');
  ws = createWorkspace({ cwd: work });
});
afterEach(() => cleanup());

const read = (input: object) => runTool(readTool(ws), input);
const write = (input: object) => runTool(writeTool(ws), input);
const edit = (input: object) => runTool(editTool(ws), input);

describe('workspace confinement', () => {
  test('.. traversal out of the workspace is refused', async () => {
    await expect(read({ file_path: '../outside/secret.txt' })).rejects.toThrow(/outside the workspace/);
    await expect(write({ file_path: 'a/../../outside/new.txt', content: 'x' })).rejects.toThrow(ToolRefusal);
    await expect(stat(join(outside, 'new.txt'))).rejects.toThrow(/ENOENT/);
  });

  test('absolute paths outside are refused, absolute paths inside work', async () => {
    await expect(read({ file_path: join(outside, 'secret.txt') })).rejects.toThrow(/outside the workspace/);
    await expect(read({ file_path: '/etc/passwd' })).rejects.toThrow(/outside the workspace/);
    await writeFile(join(work, 'in.txt'), 'hello\n');
    expect(await read({ file_path: join(work, 'in.txt') })).toBe('1\thello');
  });

  test('a symlinked file pointing out is refused for reading and writing', async () => {
    await symlink(join(outside, 'secret.txt'), join(work, 'link.txt'));
    await expect(read({ file_path: 'link.txt' })).rejects.toThrow(/resolves to .*outside/);
    await expect(write({ file_path: 'link.txt', content: 'pwned' })).rejects.toThrow(/outside the workspace/);
    expect(await readFile(join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');
  });

  test('a symlinked directory pointing out is refused, also for new files inside it', async () => {
    await symlink(outside, join(work, 'linkdir'));
    await expect(read({ file_path: 'linkdir/secret.txt' })).rejects.toThrow(/outside the workspace/);
    await expect(write({ file_path: 'linkdir/new.txt', content: 'x' })).rejects.toThrow(/outside the workspace/);
    await expect(write({ file_path: 'linkdir/deep/er/new.txt', content: 'x' })).rejects.toThrow(/outside the workspace/);
    await expect(stat(join(outside, 'new.txt'))).rejects.toThrow(/ENOENT/);
    await expect(stat(join(outside, 'deep'))).rejects.toThrow(/ENOENT/);
  });

  test('a dangling symlink whose target is outside cannot be written through', async () => {
    await symlink(join(outside, 'not-yet.txt'), join(work, 'dangling.txt'));
    await expect(write({ file_path: 'dangling.txt', content: 'x' })).rejects.toThrow(/outside the workspace/);
    await expect(stat(join(outside, 'not-yet.txt'))).rejects.toThrow(/ENOENT/);
  });

  test('a symlinked directory inside the workspace works, and extra roots are allowed', async () => {
    await mkdir(join(work, 'real'));
    await symlink(join(work, 'real'), join(work, 'alias'));
    expect(await write({ file_path: 'alias/new.txt', content: 'ok\n' })).toMatch(/Created/);
    expect(await readFile(join(work, 'real', 'new.txt'), 'utf8')).toBe('ok\n');
    const wide = createWorkspace({ cwd: work, roots: [outside] });
    expect(await runTool(readTool(wide), { file_path: join(outside, 'secret.txt') })).toBe('1\ttop secret');
  });
});

describe('Read', () => {
  test('numbers lines from 1 and honours offset and limit with a note', async () => {
    await writeFile(join(work, 'f.txt'), 'a\nb\nc\nd\ne\n');
    expect(await read({ file_path: 'f.txt' })).toBe('1\ta\n2\tb\n3\tc\n4\td\n5\te');
    expect(await read({ file_path: 'f.txt', offset: 2, limit: 2 })).toBe(
      '2\tb\n3\tc\n\n[Showing lines 2-3 of 5. Read more with offset 4.]',
    );
    expect(await read({ file_path: 'f.txt', offset: 9 })).toMatch(/past the end/);
  });

  test('cuts at 2000 lines by default and truncates long lines', async () => {
    const lines = Array.from({ length: 2500 }, (_, i) => (i === 0 ? 'x'.repeat(2100) : `line ${i + 1}`));
    await writeFile(join(work, 'big.txt'), lines.join('\n'));
    const out = await read({ file_path: 'big.txt' });
    const outLines = out.split('\n');
    expect(outLines[0]).toBe(`1\t${'x'.repeat(2000)}… [line cut at 2000 characters]`);
    expect(outLines[1999]).toBe('2000\tline 2000');
    expect(out).toContain('[Showing lines 1-2000 of 2500. Read more with offset 2001.]');
    expect(out).toContain('[1 long line(s) were cut.]');
  });

  test('refuses binary files, directories and missing files with advice', async () => {
    await writeFile(join(work, 'bin.dat'), Buffer.from([0x89, 0x50, 0x00, 0x01, 0x02]));
    await expect(read({ file_path: 'bin.dat' })).rejects.toThrow(/binary file .*Use Bash/);
    await mkdir(join(work, 'd'));
    await expect(read({ file_path: 'd' })).rejects.toThrow(/is a directory.*Glob/);
    await expect(read({ file_path: 'nope.txt' })).rejects.toThrow(/does not exist.*Glob/);
  });

  test('reports an empty file and records the read', async () => {
    await writeFile(join(work, 'empty.txt'), '');
    expect(await read({ file_path: 'empty.txt' })).toMatch(/is empty/);
    expect(ws.readFiles.has(join(work, 'empty.txt'))).toBe(true);
  });
});

describe('Write', () => {
  test('creates files and missing directories without a prior Read', async () => {
    expect(await write({ file_path: 'a/b/c.txt', content: 'one\ntwo' })).toMatch(/Created .*c\.txt \(2 lines/);
    expect(await readFile(join(work, 'a/b/c.txt'), 'utf8')).toBe('one\ntwo');
  });

  test('refuses to overwrite a file that was never Read, then allows it after a Read', async () => {
    await writeFile(join(work, 'x.txt'), 'old');
    await expect(write({ file_path: 'x.txt', content: 'new' })).rejects.toThrow(/not been read.*Read it/);
    expect(await readFile(join(work, 'x.txt'), 'utf8')).toBe('old');
    await read({ file_path: 'x.txt' });
    expect(await write({ file_path: 'x.txt', content: 'new' })).toMatch(/Overwrote/);
    expect(await readFile(join(work, 'x.txt'), 'utf8')).toBe('new');
  });

  test('refuses to overwrite a file changed on disk since the Read', async () => {
    await writeFile(join(work, 'x.txt'), 'old');
    await read({ file_path: 'x.txt' });
    await writeFile(join(work, 'x.txt'), 'changed by someone else');
    await expect(write({ file_path: 'x.txt', content: 'new' })).rejects.toThrow(/modified on disk/);
    expect(await readFile(join(work, 'x.txt'), 'utf8')).toBe('changed by someone else');
  });

  test('refuses a directory as the target', async () => {
    await mkdir(join(work, 'd'));
    await expect(write({ file_path: 'd', content: 'x' })).rejects.toThrow(/is a directory/);
  });
});

describe('Edit', () => {
  beforeEach(async () => {
    await writeFile(join(work, 'e.ts'), 'const a = 1;\nconst b = 2;\nconst c = 1;\n');
  });

  test('refuses a file never Read and leaves it untouched', async () => {
    await expect(edit({ file_path: 'e.ts', old_string: 'a = 1', new_string: 'a = 3' })).rejects.toThrow(/not been read/);
    expect(await readFile(join(work, 'e.ts'), 'utf8')).toBe('const a = 1;\nconst b = 2;\nconst c = 1;\n');
  });

  test('replaces a unique match and reports the change with line numbers', async () => {
    await read({ file_path: 'e.ts' });
    const out = await edit({ file_path: 'e.ts', old_string: 'const b = 2;', new_string: 'const b = 20;' });
    expect(out).toContain('Edited');
    expect(out).toContain('2\tconst b = 20;');
    expect(out).toContain('1\tconst a = 1;');
    expect(await readFile(join(work, 'e.ts'), 'utf8')).toBe('const a = 1;\nconst b = 20;\nconst c = 1;\n');
  });

  test('a second Edit needs no re-read (the tracker is updated after writing)', async () => {
    await read({ file_path: 'e.ts' });
    await edit({ file_path: 'e.ts', old_string: 'const a', new_string: 'let a' });
    await edit({ file_path: 'e.ts', old_string: 'const b', new_string: 'let b' });
    expect(await readFile(join(work, 'e.ts'), 'utf8')).toBe('let a = 1;\nlet b = 2;\nconst c = 1;\n');
  });

  test('refuses missing, ambiguous, empty and identical strings', async () => {
    await read({ file_path: 'e.ts' });
    await expect(edit({ file_path: 'e.ts', old_string: 'zzz', new_string: 'y' })).rejects.toThrow(/not found.*exactly/);
    await expect(edit({ file_path: 'e.ts', old_string: '= 1;', new_string: '= 9;' })).rejects.toThrow(/occurs 2 times.*replace_all/);
    await expect(edit({ file_path: 'e.ts', old_string: 'a', new_string: 'a' })).rejects.toThrow(/identical/);
    await expect(edit({ file_path: 'e.ts', old_string: '', new_string: 'x' })).rejects.toThrow(/empty/);
    await expect(edit({ file_path: 'missing.ts', old_string: 'a', new_string: 'b' })).rejects.toThrow(/does not exist.*Write/);
    expect(await readFile(join(work, 'e.ts'), 'utf8')).toBe('const a = 1;\nconst b = 2;\nconst c = 1;\n');
  });

  test('replace_all changes every occurrence', async () => {
    await read({ file_path: 'e.ts' });
    expect(await edit({ file_path: 'e.ts', old_string: '= 1;', new_string: '= 9;', replace_all: true })).toMatch(/Replaced 2 occurrences/);
    expect(await readFile(join(work, 'e.ts'), 'utf8')).toBe('const a = 9;\nconst b = 2;\nconst c = 9;\n');
  });

  test('stale check: a change on disk after the Read (even same size) is refused', async () => {
    await read({ file_path: 'e.ts' });
    await writeFile(join(work, 'e.ts'), 'const a = 7;\nconst b = 2;\nconst c = 1;\n');
    const future = new Date(Date.now() + 5000);
    await utimes(join(work, 'e.ts'), future, future); // same size: the mtime tells
    await expect(edit({ file_path: 'e.ts', old_string: 'const b', new_string: 'let b' })).rejects.toThrow(/modified on disk since it was last read/);
    expect(await readFile(join(work, 'e.ts'), 'utf8')).toBe('const a = 7;\nconst b = 2;\nconst c = 1;\n');
    await read({ file_path: 'e.ts' });
    await expect(edit({ file_path: 'e.ts', old_string: 'const b', new_string: 'let b' })).resolves.toMatch(/Edited/);
  });

  test('an edit outside the workspace is refused before anything else', async () => {
    await expect(edit({ file_path: join(outside, 'secret.txt'), old_string: 'top', new_string: 'no' })).rejects.toThrow(/outside the workspace/);
  });
});
