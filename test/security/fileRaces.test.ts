/**
 * The file tools against a concurrent attacker: a separate process swaps what a path names while
 * Glob and Grep walk (a directory for a symlink to outside, a file for a FIFO), and Read deny
 * rules against the walks. Judged by what the tools return (no outside byte or name) and by the
 * calls finishing at all: a synchronous open of a FIFO used to freeze this very process.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createReadDenyCheck } from '../../src/permissions/readDenyCheck.js';
import { globTool } from '../../src/tools/builtin/glob.js';
import { grepTool } from '../../src/tools/builtin/grep.js';
import { createWorkspace, ToolRefusal, type Workspace } from '../../src/tools/builtin/workspace.js';
import { makeTempDir, runTool } from '../builtin/helpers.js';

let root: string;
let work: string;
let outside: string;
let cleanup: () => Promise<void>;
let swapper: ChildProcess | undefined;

beforeEach(async () => {
  ({ dir: root, cleanup } = await makeTempDir('rxagent-sec-races-'));
  work = join(root, 'work');
  outside = join(root, 'outside');
  await mkdir(join(work, 'sub'), { recursive: true });
  await mkdir(outside);
  await writeFile(join(work, 'sub', 'a.txt'), 'needle inside\n');
  await writeFile(join(outside, 'a.txt'), 'needle OUTSIDE-SECRET\n');
  await writeFile(join(outside, 'outside-only.txt'), 'needle OUTSIDE-SECRET\n');
});
afterEach(async () => {
  if (swapper && swapper.exitCode === null && swapper.signalCode === null) {
    swapper.kill('SIGKILL');
    await once(swapper, 'exit');
  }
  swapper = undefined;
  await cleanup();
});

/**
 * Starts a node process that runs `steps` (rename/symlink/link calls on paths relative to `cwd`)
 * in a loop until killed, and resolves once it has gone round once. Each step ignores errors:
 * the tools may hold the names for a moment.
 */
async function startSwapper(cwd: string, steps: string): Promise<{ rounds: () => Promise<number> }> {
  const script = `
    const fs = require('node:fs');
    const t = (f) => { try { f(); } catch {} };
    let rounds = 0;
    process.on('SIGUSR2', () => process.stdout.write('rounds ' + rounds + '\\n'));
    (async () => {
      for (;;) {
        ${steps};
        if (++rounds === 1) process.stdout.write('ready\\n');
        // A turn of the event loop now and then, so the signal that asks for the count is seen.
        if (rounds % 256 === 0) await new Promise((r) => setImmediate(r));
      }
    })();
  `;
  const child = spawn(process.execPath, ['-e', script], {
    cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  swapper = child;
  child.stdout!.setEncoding('utf8');
  let buffered = '';
  const waiters: Array<(line: string) => void> = [];
  child.stdout!.on('data', (chunk: string) => {
    buffered += chunk;
    for (let at = buffered.indexOf('\n'); at !== -1; at = buffered.indexOf('\n')) {
      const line = buffered.slice(0, at);
      buffered = buffered.slice(at + 1);
      waiters.shift()?.(line);
    }
  });
  child.on('exit', (code, signal) => waiters.splice(0).forEach((w) => w(`exited ${code ?? signal}`)));
  const nextLine = () => new Promise<string>((resolve) => waiters.push(resolve));
  expect(await nextLine()).toBe('ready');
  return {
    rounds: async () => {
      const line = nextLine();
      child.kill('SIGUSR2');
      return Number((await line).split(' ')[1]);
    },
  };
}

function tools(ws: Workspace) {
  return {
    glob: (input: object) => runTool(globTool(ws), input) as Promise<string>,
    grep: (input: object) => runTool(grepTool(ws), input) as Promise<string>,
  };
}

/** A call that may be refused (the path is mid-swap) but must finish; returns its text either way. */
async function settle(call: Promise<string>): Promise<string> {
  try {
    return await call;
  } catch (error) {
    if (error instanceof ToolRefusal) return `refused: ${error.message}`;
    throw error;
  }
}

describe('a directory swapped for a symlink to outside during the walk', () => {
  test('150 Glob and 150 Grep calls never list or read outside contents', async () => {
    await symlink(outside, join(work, 'link'));
    // sub: a real directory, then the link to outside under the same name, then back.
    const { rounds } = await startSwapper(
      work,
      "t(() => fs.renameSync('sub', 'parked')); t(() => fs.renameSync('link', 'sub')); t(() => fs.renameSync('sub', 'link')); t(() => fs.renameSync('parked', 'sub'))",
    );
    const { glob, grep } = tools(createWorkspace({ cwd: work }));
    const outputs: string[] = [];
    for (let i = 0; i < 150; i++) {
      outputs.push(await settle(glob({ pattern: '**/*.txt' })));
      outputs.push(await settle(grep({ pattern: 'needle', output_mode: 'content' })));
    }
    expect(await rounds()).toBeGreaterThan(0);
    for (const out of outputs) expect(out).not.toMatch(/OUTSIDE-SECRET|outside-only/);
    // The walk still works: the inside file is found whenever sub was a directory.
    expect(outputs.some((out) => out.includes('needle inside'))).toBe(true);
  }, 120_000);
});

describe('a file swapped for a FIFO during the walk', () => {
  test('Grep never blocks on it: 300 calls over the tree and on the file itself all finish', async () => {
    execFileSync('mkfifo', [join(work, 'fifo-template')]);
    await writeFile(join(work, 'file-template'), 'needle in the file\n');
    // Hard links of the two templates renamed over sub/target.txt in turn: each rename is atomic.
    const { rounds } = await startSwapper(
      work,
      "t(() => fs.linkSync('fifo-template', 'f.tmp')); t(() => fs.renameSync('f.tmp', 'sub/target.txt')); t(() => fs.linkSync('file-template', 'r.tmp')); t(() => fs.renameSync('r.tmp', 'sub/target.txt'))",
    );
    const { grep } = tools(createWorkspace({ cwd: work }));
    const outputs: string[] = [];
    for (let i = 0; i < 150; i++) {
      outputs.push(await settle(grep({ pattern: 'needle', output_mode: 'content' })));
      outputs.push(await settle(grep({ pattern: 'needle', path: 'sub/target.txt' })));
    }
    expect(await rounds()).toBeGreaterThan(0);
    expect(outputs).toHaveLength(300);
    // What a call on the file itself may say: found, or refused as not a regular file.
    for (const out of outputs.filter((_, i) => i % 2 === 1)) {
      expect(out).toMatch(/sub\/target\.txt|not a regular file|No matches|does not exist/);
    }
  }, 120_000);
});

describe('Read deny rules hold inside Glob and Grep walks', () => {
  beforeEach(async () => {
    await mkdir(join(work, 'secrets'));
    await writeFile(join(work, 'secrets', 'key.txt'), 'TOKEN=denied-secret\n');
    await writeFile(join(work, 'public.txt'), 'TOKEN=public\n');
    // A link inside the workspace to the denied file: its target is what counts.
    await symlink(join(work, 'secrets', 'key.txt'), join(work, 'alias.txt'));
  });

  test('denied files are neither listed nor searched, and the result says some were left out', async () => {
    const rules = ['Read(secrets/**)'];
    const ws = createWorkspace({ cwd: work, readDenied: createReadDenyCheck({ rules: () => rules, cwd: work }) });
    const { glob, grep } = tools(ws);
    for (const output_mode of ['content', 'files_with_matches', 'count'] as const) {
      const out = await grep({ pattern: 'TOKEN', output_mode });
      expect(out, output_mode).toContain('public.txt');
      expect(out, output_mode).not.toMatch(/denied-secret|key\.txt|alias\.txt/);
      expect(out, output_mode).toMatch(/2 file\(s\) not searched: permission rules/);
    }
    const listed = await glob({ pattern: '**/*' });
    expect(listed).toContain('public.txt');
    expect(listed).not.toMatch(/key\.txt|alias\.txt/);
    expect(listed).toMatch(/2 matching file\(s\) not listed/);
  });

  test('a rule for one tool, an ask rule, an absolute rule, and a rule added mid-run all count', async () => {
    const rules: string[] = ['Grep(secrets/**)'];
    const ws = createWorkspace({ cwd: work, readDenied: createReadDenyCheck({ rules: () => rules, cwd: work }) });
    const { glob, grep } = tools(ws);
    expect(await grep({ pattern: 'TOKEN' })).not.toContain('key.txt');
    expect(await glob({ pattern: '**/key.txt' })).toContain('secrets/key.txt'); // a Grep rule leaves Glob alone
    rules.splice(0, 1, `Read(${join(work, 'secrets')}/**)`);
    expect(await glob({ pattern: '**/key.txt' })).toMatch(/^No files match/);
    rules.splice(0, 1, 'Read(public.txt)');
    expect(await grep({ pattern: 'TOKEN' })).not.toContain('public.txt');
    expect(await grep({ pattern: 'TOKEN' })).toContain('secrets/key.txt');
  });
});
