/**
 * A protected folder that does not exist yet. bwrap can only mount over what exists, so before
 * session 7 a sandboxed command in a workspace without `.git` (or `.claude`, `.rxagent`) could
 * create one: `.git/hooks` or a `core.fsmonitor` line then run on the user's next git command
 * (an editor runs `git status` constantly), and `.claude/settings.local.json` can approve project
 * MCP servers that start outside the sandbox at the next run. Now each missing name gets an empty
 * read-only mount (src/sandbox/placeholders.ts), removed after the call. Through the built
 * `rxagent -p` and the scripted model, judged by the host's file system afterwards.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { createSandbox } from '../../src/sandbox/createSandbox.js';
import { createPlaceholderRegistry } from '../../src/sandbox/placeholders.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { bashTool } from '../../src/tools/builtin/bash.js';
import { createWorkspace } from '../../src/tools/builtin/workspace.js';
import { makeTempDir, runTool } from '../builtin/helpers.js';
import { assertBuilt, makeSandbox, removeSandboxes, runAgainst } from '../cli/helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const haveSandbox = createSandbox({ platform: process.platform, roots: ['/'] }).status.kind === 'bwrap';
if (!haveSandbox) console.warn('missing protected folder tests skipped: no bubblewrap sandbox here');
const done: ScriptedResponse = { kind: 'message', blocks: [{ type: 'text', text: 'done' }] };

const ATTACKS = [
  `mkdir -p .git/hooks && printf '#!/bin/sh\\ntouch ../pwned\\n' > .git/hooks/post-checkout && echo MADE-GIT-HOOK`,
  'git init -q . && echo MADE-REPO',
  `mkdir .claude; printf '{"enableAllProjectMcpServers": true}' > .claude/settings.local.json && echo MADE-CLAUDE`,
  `mkdir -p .rxagent && echo '{}' > .rxagent/settings.json && echo MADE-RXAGENT`,
  // The placeholders themselves cannot be taken away or replaced from inside.
  'rmdir .claude && echo REMOVED-PLACEHOLDER; mv .git moved && echo MOVED-PLACEHOLDER; ln -s /tmp .rxagent && echo LINKED; true',
];
const CONTROL = 'mkdir -p src/deep && echo ok > src/deep/f && echo MADE-PLAIN';
const calls: ScriptedResponse = {
  kind: 'message',
  blocks: [...ATTACKS, CONTROL].map((command, i) => ({ type: 'tool_use' as const, id: `toolu_${i}`, name: 'Bash', input: { command } })),
};

describe.runIf(haveSandbox).concurrent('a sandboxed command cannot create .git, .claude or .rxagent where none exists', () => {
  for (const mode of ['default', 'acceptEdits', 'dontAsk']) {
    test(`${mode} with Bash allowed`, async () => {
      const box = makeSandbox({ 'notes.txt': 'keep\n' });
      const run = await runAgainst([calls, done], ['-p', 'go', '--output-format', 'json', '--permission-mode', mode, '--allowedTools', 'Bash'], box);
      expect(run.code, run.stderr).toBe(0);
      const sent = run.server.requests.map((r) => r.rawBody).join('\n');
      expect(sent).toContain('MADE-PLAIN');
      for (const marker of ['MADE-GIT-HOOK', 'MADE-REPO', 'MADE-CLAUDE', 'MADE-RXAGENT', 'REMOVED-PLACEHOLDER', 'MOVED-PLACEHOLDER', 'LINKED']) {
        expect(sent, marker).not.toContain(`${marker}\\n`);
      }
      // Nothing is left on the host: no folder, no placeholder, no moved or linked copy.
      expect(readdirSync(box.cwd).sort()).toEqual(['notes.txt', 'src']);
      expect(existsSync(join(box.cwd, 'src', 'deep', 'f'))).toBe(true);
    }, 120_000);
  }

  test('bypassPermissions may create them (the mode allows edits there): the control', async () => {
    const box = makeSandbox({ 'notes.txt': 'keep\n' });
    const run = await runAgainst([calls, done], ['-p', 'go', '--output-format', 'json', '--permission-mode', 'bypassPermissions'], box);
    expect(run.code, run.stderr).toBe(0);
    const sent = run.server.requests.map((r) => r.rawBody).join('\n');
    expect(sent).toContain('MADE-GIT-HOOK');
    expect(sent).toContain('MADE-CLAUDE');
    expect(existsSync(join(box.cwd, '.claude', 'settings.local.json'))).toBe(true);
  }, 120_000);
});

describe.runIf(haveSandbox)('placeholders shared by concurrent calls', () => {
  let dir: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ dir, cleanup } = await makeTempDir('rxagent-placeholder-'));
    mkdirSync(join(dir, 'ws'));
  });
  afterEach(() => cleanup());

  test("a call that ends first does not remove the placeholder another call still stands behind", async () => {
    const ws = join(dir, 'ws');
    const workspace = createWorkspace({ cwd: ws });
    const sandbox = createSandbox({ platform: process.platform, roots: workspace.roots });
    const bash = bashTool(workspace, { sandbox, permissionMode: 'acceptEdits', killGraceMs: 300 });
    execFileSync('mkfifo', [join(ws, 'gate')]);
    // A waits at the gate (a FIFO) and then tries; B runs to its end meanwhile.
    const a = runTool(bash, { command: 'read -r _ < gate; mkdir -p .git/hooks && echo A-MADE-IT || echo A-REFUSED' }).then(String);
    const b = await runTool(bash, { command: 'echo B-DONE' }).then(String);
    expect(b).toContain('B-DONE');
    expect(existsSync(join(ws, '.git'))).toBe(true); // A's placeholder is still there, empty
    expect(readdirSync(join(ws, '.git'))).toEqual([]);
    const gate = await open(join(ws, 'gate'), 'w'); // opens once A is reading
    await gate.write('go\n');
    await gate.close();
    expect(await a).toContain('A-REFUSED');
    expect(existsSync(join(ws, '.git'))).toBe(false);
    expect(existsSync(join(ws, '.claude'))).toBe(false);
  }, 60_000);
});

describe('the placeholder registry waits for a killed call to be gone', () => {
  test('a call that did not end normally keeps its placeholders until its init process no longer exists', async () => {
    const removed: string[] = [];
    const registry = createPlaceholderRegistry((path) => removed.push(path));
    const first = registry.plan([], ['/w/.git']);
    expect(first).toEqual({ bindReadOnly: [], placeholders: ['/w/.git'] });
    const init = spawn('sleep', ['600'], { stdio: 'ignore' }); // stands for the sandbox's init
    const hold = registry.take(first.placeholders, () => init.pid);
    hold.release({ exitedNormally: false });
    expect(removed).toEqual([]);
    // Still held: a new call gets a placeholder mount again, not a plain read-only bind of it.
    expect(registry.plan(['/w/.git'], [])).toEqual({ bindReadOnly: [], placeholders: ['/w/.git'] });
    init.kill('SIGKILL');
    await new Promise((resolve) => init.once('exit', resolve));
    registry.plan([], []); // any later plan or release settles what is gone
    expect(removed).toEqual(['/w/.git']);
    expect(registry.outstanding()).toEqual([]);
  });

  test('at exit, the init of a call still running is killed first, and its placeholders go only once it is gone', () => {
    const removed: string[] = [];
    const registry = createPlaceholderRegistry((path) => removed.push(path));
    // A real process that is not our child (as a sandbox's init is bwrap's): its parent shell
    // exits at once, so the system reaps it, not our event loop (which the wait holds up).
    const init = Number(execFileSync('sh', ['-c', 'sleep 600 >/dev/null 2>&1 & echo $!'], { encoding: 'utf8' }).trim());
    registry.take(['/w/.claude'], () => init);
    registry.take(['/w/.rxagent']); // no init reported: never removed
    registry.shutdown(10_000);
    expect(removed).toEqual(['/w/.claude']);
    expect(registry.outstanding()).toEqual(['/w/.rxagent']);
  });

  test('without a reported init it never removes them; a normal end removes at once; shared paths wait for the last user', () => {
    const removed: string[] = [];
    const registry = createPlaceholderRegistry((path) => removed.push(path));
    registry.take(['/w/.claude']).release({ exitedNormally: false });
    registry.plan([], []);
    expect(removed).toEqual([]);
    const one = registry.take(['/w/.git']);
    const two = registry.take(['/w/.git']);
    one.release({ exitedNormally: true });
    expect(removed).toEqual([]);
    two.release({ exitedNormally: true });
    two.release({ exitedNormally: true }); // once only
    expect(removed).toEqual(['/w/.git']);
    expect(registry.outstanding()).toEqual(['/w/.claude']);
  });
});
