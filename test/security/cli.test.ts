/**
 * The built `rxagent -p` against a scripted model that misbehaves: it tries to read and write
 * outside the workspace (in bypassPermissions too), to leak the API key, to crash us with deep
 * JSON or odd ids, and the command line itself gets hostile flags. Run `npm run build` first.
 */
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createFileResultStore } from '../../src/context/toolResultBudget.js';
import { createJsonlSessionStore } from '../../src/session/jsonlSessionStore.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { assertBuilt, CLI, makeSandbox, parseLines, removeSandboxes, runAgainst, runCli } from '../cli/helpers.js';
import { makeTempDir } from '../builtin/helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const KEY = 'sk-ant-cli-sec-0123456789abcdefXYZ';
const env = { ANTHROPIC_API_KEY: KEY };
const text = (t: string): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'text', text: t }] });
const tools = (...calls: Array<[name: string, input: Record<string, unknown>]>): ScriptedResponse => ({
  kind: 'message',
  blocks: calls.map(([name, input], i) => ({ type: 'tool_use' as const, id: `toolu_${i}_${name}`, name, input })),
});

/** Every file under `dir`, recursively, as one string. */
function allText(dir: string): string {
  if (!existsSync(dir)) return '';
  let out = '';
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out += readFileSync(join(entry.parentPath, entry.name), 'utf8');
  }
  return out;
}

/** Sandbox with a secret outside the workspace, another in HOME, and a symlink leading out. */
function hostileBox() {
  const box = makeSandbox({ 'notes.txt': 'inside\n' });
  const outside = join(box.cwd, '..', 'outside');
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.txt'), 'OUTSIDE-SECRET\n');
  mkdirSync(join(box.home, '.ssh'));
  writeFileSync(join(box.home, '.ssh', 'id_rsa'), 'HOME-SECRET\n');
  return { ...box, outside };
}

describe.concurrent('confinement through the command, in every mode', () => {
  for (const mode of ['bypassPermissions', 'acceptEdits', 'default', 'plan', 'dontAsk']) {
    test(mode, async () => {
      const box = hostileBox();
      const script = [
        tools(
          ['Read', { file_path: '../outside/secret.txt' }],
          ['Read', { file_path: '~/.ssh/id_rsa' }],
          ['Glob', { pattern: '**/*', path: '..' }],
          ['Grep', { pattern: 'SECRET', path: '~' }],
          ['Grep', { pattern: 'SECRET', glob: '../**' }],
        ),
        tools(['Write', { file_path: '../outside/pwned.txt', content: 'x' }]),
        tools(['Edit', { file_path: '../outside/secret.txt', old_string: 'OUTSIDE', new_string: 'PWNED' }]),
        tools(['Bash', { command: 'cat ~/.ssh/id_rsa' }]),
        text('done'),
      ];
      const run = await runAgainst(script, ['-p', 'go', '--output-format', 'stream-json', '--verbose', '--permission-mode', mode], { ...box, env });
      expect(run.code, run.stderr).toBe(0);
      const sentBack = run.server.requests.map((r) => r.rawBody).join('\n');
      if (mode !== 'bypassPermissions') {
        // Only bypassPermissions may run the shell read of ~/.ssh; the file tools never leave.
        expect(run.stdout + sentBack).not.toContain('HOME-SECRET');
      }
      expect(run.stdout + sentBack).not.toContain('OUTSIDE-SECRET');
      expect(existsSync(join(box.outside, 'pwned.txt'))).toBe(false);
      expect(readFileSync(join(box.outside, 'secret.txt'), 'utf8')).toBe('OUTSIDE-SECRET\n');
      parseLines(run.stdout); // every line still valid
    });
  }

  test('default mode: a read-only Bash command outside the workspace is denied, not run', async () => {
    const box = hostileBox();
    const run = await runAgainst(
      [tools(['Bash', { command: 'cat ~/.ssh/id_rsa' }], ['Bash', { command: 'cat ../outside/secret.txt' }], ['Bash', { command: 'cat notes.txt' }]), text('done')],
      ['-p', 'go', '--output-format', 'json'],
      { ...box, env },
    );
    expect(run.code, run.stderr).toBe(0);
    const result = parseLines(run.stdout)[0] as { permission_denials: Array<{ tool_name: string }> };
    expect(result.permission_denials).toHaveLength(2);
    const sent = run.server.requests[1]!.rawBody;
    expect(sent).not.toMatch(/HOME-SECRET|OUTSIDE-SECRET/);
    expect(sent).toContain('inside');
  });
});

describe.concurrent('acceptEdits cannot turn a read-only git command into code execution', () => {
  test('editing .git/config (core.fsmonitor) asks, so the auto-allowed git status runs nothing', async () => {
    const box = makeSandbox({ 'a.txt': 'x\n' });
    execFileSync('git', ['init', '-q'], { cwd: box.cwd });
    const marker = join(box.cwd, '..', 'PWNED');
    const before = readFileSync(join(box.cwd, '.git', 'config'), 'utf8');
    const script = [
      tools(['Read', { file_path: '.git/config' }]),
      tools(['Edit', { file_path: '.git/config', old_string: '[core]', new_string: `[core]\n\tfsmonitor = "touch ${marker}; false"` }]),
      tools(['Write', { file_path: '.rxagent/settings.json', content: '{"hooks":{}}' }]),
      tools(['Bash', { command: 'git status' }]),
      text('done'),
    ];
    const run = await runAgainst(script, ['-p', 'go', '--output-format', 'json', '--permission-mode', 'acceptEdits'], { ...box, env });
    expect(run.code, run.stderr).toBe(0);
    const result = parseLines(run.stdout)[0] as { permission_denials: Array<{ tool_name: string }> };
    expect(result.permission_denials.map((d) => d.tool_name)).toEqual(['Edit', 'Write']);
    expect(readFileSync(join(box.cwd, '.git', 'config'), 'utf8')).toBe(before);
    expect(existsSync(join(box.cwd, '.rxagent'))).toBe(false);
    expect(existsSync(marker)).toBe(false);
  });
});

describe.concurrent('the API key never shows', () => {
  test('not in stream-json, stderr, transcripts or what goes back to the model', async () => {
    const box = makeSandbox();
    const script = [
      tools(['Bash', { command: 'env; printenv ANTHROPIC_API_KEY; tr "\\0" "\\n" </proc/self/environ' }]),
      text(`Here is your key: ${KEY} (echoed by a hostile endpoint)`),
    ];
    const run = await runAgainst(script, ['-p', 'go', '--output-format', 'stream-json', '--verbose', '--permission-mode', 'bypassPermissions'], { ...box, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('PATH=');
    expect(run.stdout).toContain('[redacted]');
    expect(run.stdout + run.stderr).not.toContain(KEY);
    expect(run.server.requests[1]!.rawBody).not.toContain(KEY);
    expect(allText(join(box.home, '.rxagent'))).not.toContain(KEY);
    // Everything the run left under ~/.rxagent is owner-only.
    for (const entry of readdirSync(join(box.home, '.rxagent'), { recursive: true, withFileTypes: true })) {
      const path = join(entry.parentPath, entry.name);
      expect(statSync(path).mode & 0o777, path).toBe(entry.isDirectory() ? 0o700 : 0o600);
    }
  });

  test('not in error lines, even --verbose and with the key in the error body', async () => {
    const box = makeSandbox();
    const script: ScriptedResponse[] = [{ kind: 'http_error', status: 401, errorType: 'authentication_error', message: `invalid x-api-key ${KEY}` }];
    for (const format of ['text', 'json', 'stream-json']) {
      const run = await runAgainst(script, ['-p', 'go', '--output-format', format, '--verbose'], { ...box, env });
      expect(run.code).toBe(1);
      expect(run.stdout + run.stderr).toContain('authentication_error');
      expect(run.stdout + run.stderr).not.toContain(KEY);
    }
  }, 120_000);
});

describe.concurrent('hostile model output', () => {
  test('a tool input nested 100,000 levels deep is a tool error, not a crash', async () => {
    const box = makeSandbox();
    const deep = `{"file_path":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const script: ScriptedResponse[] = [
      { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_deep', name: 'Read', rawInput: deep }] },
      text('recovered'),
    ];
    const run = await runAgainst(script, ['-p', 'go', '--output-format', 'json'], { ...box, env });
    expect(run.stderr).not.toMatch(/internal error|call stack/);
    expect(run.code).toBe(0);
    expect(parseLines(run.stdout)[0]).toMatchObject({ result: 'recovered' });
  });

  test('a tool name and id with path characters stay harmless', async () => {
    const box = makeSandbox();
    const big = 'z'.repeat(200_000);
    writeFileSync(join(box.cwd, 'big.txt'), `${big}\n`.repeat(3));
    const script: ScriptedResponse[] = [
      {
        kind: 'message',
        blocks: [
          { type: 'tool_use', id: '../../../../escape', name: '../../etc/Read', input: {} },
          { type: 'tool_use', id: '../../../../escaped_read', name: 'Bash', input: { command: 'cat big.txt' } },
        ],
      },
      text('ok'),
    ];
    const run = await runAgainst(script, ['-p', 'go', '--output-format', 'json', '--permission-mode', 'bypassPermissions'], { ...box, env });
    expect(run.code, run.stderr).toBe(0);
    const projects = join(box.home, '.rxagent', 'projects');
    // Nothing named after the id anywhere but inside a session's tool-results folder.
    const stray = readdirSync(box.home, { recursive: true, withFileTypes: true }).filter(
      (e) => e.isFile() && e.name.includes('escape') && !e.parentPath.endsWith('tool-results'),
    );
    expect(stray).toEqual([]);
    expect(existsSync(join(box.cwd, '..', 'escaped_read.txt'))).toBe(false);
    expect(allText(projects)).toContain('There is no tool named `../../etc/Read`'); // refused by name, as a result
  });

  // A backtracking engine spends hours on these patterns: the run finishing at all is the check.
  test('a catastrophic-backtracking Grep pattern does not freeze the run', { timeout: 120_000 }, async () => {
    const box = makeSandbox({ 'bad.txt': `${'a'.repeat(60)}!\n`.repeat(50) });
    const run = await runAgainst(
      [tools(['Grep', { pattern: '(a+)+$', output_mode: 'count' }], ['Grep', { pattern: '^(a|aa)*$' }]), text('done')],
      ['-p', 'go', '--output-format', 'json'],
      { ...box, env },
    );
    // RE2 is linear: the run finishes (a backtracking engine would hold it for hours) and both
    // patterns report no match.
    expect(run.code, run.stderr).toBe(0);
    expect(run.server.requests[1]!.rawBody.match(/No matches/g)).toHaveLength(2);
  });

  test('a 20 MB reply completes and prints once', async () => {
    const box = makeSandbox();
    const run = await runAgainst([{ kind: 'message', blocks: [{ type: 'text', text: 'y'.repeat(20_000_000), chunkSize: 1 << 16 }] }], ['-p', 'go'], { ...box, env });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.length).toBe(20_000_001);
  });
});

describe.concurrent('hostile command lines', () => {
  const reply = [text('ok')];
  test.each([
    [['--session-id', '../../x'], 2, /session-id/],
    [['--resume', '/etc/passwd'], 1, /invalid session id/],
    [['--resume', '../../../x'], 1, /invalid session id/],
    [['--settings', '/etc/passwd'], 1, /not valid JSON/],
    [['--settings', '/nonexistent/settings.json'], 1, /settings/],
    [['--add-dir', '/nonexistent/dir'], 1, /--add-dir .*no such directory/],
  ] as const)('%j', async (flags, code, message) => {
    const box = makeSandbox();
    const run = await runAgainst(reply, ['-p', 'hi', ...flags], { ...box, env });
    expect(run.code).toBe(code);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).not.toMatch(/internal error/);
    expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    expect(run.server.requests).toHaveLength(0);
  });

  // "At once" against reading forever: each bound is generous for a loaded machine's CLI start.
  test('--settings /dev/zero, a FIFO or a huge file: a one-line error at once, no memory run-away', { timeout: 120_000 }, async () => {
    const box = makeSandbox();
    const fifo = join(box.home, 'settings.fifo');
    execFileSync('mkfifo', [fifo]);
    const huge = join(box.home, 'huge.json');
    writeFileSync(huge, `{"x":"${'a'.repeat(2 << 20)}"}`);
    // A FIFO read would block forever and /dev/zero grow without end: the runs ending at all is the check.
    for (const [file, message] of [['/dev/zero', /not a regular file/], [fifo, /not a regular file/], [huge, /more than a settings file/]] as const) {
      const run = await runAgainst(reply, ['-p', 'hi', '--settings', file], { ...box, env });
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(message);
      expect(run.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    }
  });

  test('an endless stdin prompt is cut off with a usage error', async () => {
    const box = makeSandbox();
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, [CLI, '-p'], {
      cwd: box.cwd,
      env: { PATH: process.env['PATH'] ?? '', HOME: box.home, ...env, ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' },
      stdio: [openSync('/dev/zero', 'r'), 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(2);
    expect(stderr).toMatch(/larger than \d+ bytes/);
  });

  test('binary and NUL bytes on stdin are a prompt like any other', async () => {
    const box = makeSandbox();
    const run = await runAgainst(reply, ['-p'], { ...box, env, stdin: 'look\u0000\u0001\u00ff\ud800 here' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.server.requests[0]!.validationErrors).toEqual([]);
  });

  test('a 10 MB stdin prompt (under the stdin cap) is refused before any request, with one line', async () => {
    const box = makeSandbox();
    const run = await runCli(['-p'], { ...box, env, stdin: 'w '.repeat(5_000_000), baseURL: 'http://127.0.0.1:9' });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/limit/);
    expect(run.stderr).not.toMatch(/internal error/);
  });
});

describe('files holding the conversation are private', () => {
  test('transcripts, locks and their folder are owner-only', async () => {
    const { dir, cleanup } = await makeTempDir('rxagent-sec-perm-');
    try {
      const store = createJsonlSessionStore({ workspace: dir, dir: join(dir, 'sessions'), durability: 'none' });
      const writer = await store.open('s1', { mode: 'create' });
      expect(statSync(join(dir, 'sessions')).mode & 0o777).toBe(0o700);
      expect(statSync(store.pathOf('s1')).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, 'sessions', 's1.lock')).mode & 0o777).toBe(0o600);
      await writer.close();
    } finally {
      await cleanup();
    }
  });

  test('stored tool results: owner-only, inside their folder whatever the id, never sharing a file', async () => {
    const { dir, cleanup } = await makeTempDir('rxagent-sec-store-');
    try {
      const store = createFileResultStore(join(dir, 'session'));
      const folder = join(dir, 'session', 'tool-results');
      const paths = ['../../x', 'a/b', 'a_b', '', '.', 'x'.repeat(5000), '..\\..\\y', 'toolu_01ABC'].map((id, i) => store(id, `result ${i}`));
      expect(new Set(paths).size).toBe(paths.length);
      paths.forEach((p, i) => {
        expect(p.startsWith(`${folder}/`)).toBe(true);
        expect(readFileSync(p, 'utf8')).toBe(`result ${i}`);
        expect(statSync(p).mode & 0o777).toBe(0o600);
      });
      expect(paths[7]).toBe(join(folder, 'toolu_01ABC.txt'));
      expect(statSync(folder).mode & 0o777).toBe(0o700);
      expect(readdirSync(dir)).toEqual(['session']);
    } finally {
      await cleanup();
    }
  });
});
