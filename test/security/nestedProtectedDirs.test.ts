/**
 * Protected folders below the top of the workspace: a nested repository's `sub/.git` (its
 * config's `core.fsmonitor` and its hooks run on the user's next git command there), a
 * worktree's or submodule's `.git` file (its `gitdir:` line says which repository git uses), a
 * subproject's `.claude`. Before session 9 only the top-level ones were mounted read-only, so a
 * sandboxed Bash command the mode lets write could change all of these. Through the built
 * `rxagent -p` and the scripted model, judged by the host's file system afterwards.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { createSandbox } from '../../src/sandbox/createSandbox.js';
import { nestedProtectedOf } from '../../src/sandbox/nestedProtected.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { bashTool } from '../../src/tools/builtin/bash.js';
import { createWorkspace } from '../../src/tools/builtin/workspace.js';
import { runTool } from '../builtin/helpers.js';
import { assertBuilt, makeSandbox, removeSandboxes, runAgainst } from '../cli/helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const haveSandbox = createSandbox({ platform: process.platform, roots: ['/'] }).status.kind === 'bwrap';
if (!haveSandbox) console.warn('nested protected folder tests skipped: no bubblewrap sandbox here');
const done: ScriptedResponse = { kind: 'message', blocks: [{ type: 'text', text: 'done' }] };

const CONFIG = '[core]\n\trepositoryformatversion = 0\n';
const GITFILE = 'gitdir: ../main/.git/worktrees/wt\n';
const FILES = {
  'notes.txt': 'keep\n',
  'sub/.git/config': CONFIG,
  'sub/.git/hooks/pre-commit.sample': '#!/bin/sh\n',
  'deep/er/lib/.git/config': CONFIG,
  'wt/.git': GITFILE,
  'tools/.Claude/settings.json': '{}\n',
};

const ATTACKS = [
  `printf '[core]\\n\\tfsmonitor = touch ../pwned\\n' >> sub/.git/config && echo WROTE-CONFIG`,
  `printf '#!/bin/sh\\ntouch ../pwned\\n' > sub/.git/hooks/post-checkout && echo WROTE-HOOK`,
  'chmod +x sub/.git/hooks/pre-commit.sample && echo CHMOD-HOOK',
  'ln -s sub/.git sg && echo x >> sg/config && echo WROTE-VIA-LINK',
  'echo x >> deep/er/lib/.git/config && echo WROTE-DEEP',
  'echo gitdir: /tmp/elsewhere > wt/.git && echo WROTE-GITFILE',
  `echo '{"enableAllProjectMcpServers": true}' > tools/.Claude/settings.json && echo WROTE-CLAUDE`,
  'mv sub/.git sub/old-git && echo MOVED-GIT; rm -rf deep/er/lib/.git && echo REMOVED-GIT; true',
];
const CONTROL = 'echo ok > sub/plain && echo MADE-PLAIN';
const MARKERS = ['WROTE-CONFIG', 'WROTE-HOOK', 'CHMOD-HOOK', 'WROTE-VIA-LINK', 'WROTE-DEEP', 'WROTE-GITFILE', 'WROTE-CLAUDE', 'MOVED-GIT', 'REMOVED-GIT'];
const calls: ScriptedResponse = {
  kind: 'message',
  blocks: [...ATTACKS, CONTROL].map((command, i) => ({ type: 'tool_use' as const, id: `toolu_${i}`, name: 'Bash', input: { command } })),
};

describe.runIf(haveSandbox).concurrent('a sandboxed command cannot change nested .git, .claude or .rxagent folders', () => {
  for (const mode of ['default', 'acceptEdits', 'dontAsk']) {
    test(`${mode} with Bash allowed`, async () => {
      const box = makeSandbox(FILES);
      const run = await runAgainst([calls, done], ['-p', 'go', '--output-format', 'json', '--permission-mode', mode, '--allowedTools', 'Bash'], box);
      expect(run.code, run.stderr).toBe(0);
      const sent = run.server.requests.map((r) => r.rawBody).join('\n');
      expect(sent).toContain('MADE-PLAIN');
      for (const marker of MARKERS) expect(sent, marker).not.toContain(`${marker}\\n`);
      expect(readFileSync(join(box.cwd, 'sub/.git/config'), 'utf8')).toBe(CONFIG);
      expect(readFileSync(join(box.cwd, 'deep/er/lib/.git/config'), 'utf8')).toBe(CONFIG);
      expect(existsSync(join(box.cwd, 'sub/.git/hooks/post-checkout'))).toBe(false);
      expect(readFileSync(join(box.cwd, 'wt/.git'), 'utf8')).toBe(GITFILE);
      expect(readFileSync(join(box.cwd, 'tools/.Claude/settings.json'), 'utf8')).toBe('{}\n');
      expect(existsSync(join(box.cwd, 'sub/plain'))).toBe(true);
    }, 120_000);
  }

  test('bypassPermissions may change them (the mode allows edits there): the control', async () => {
    const box = makeSandbox(FILES);
    const run = await runAgainst([calls, done], ['-p', 'go', '--output-format', 'json', '--permission-mode', 'bypassPermissions'], box);
    expect(run.code, run.stderr).toBe(0);
    const sent = run.server.requests.map((r) => r.rawBody).join('\n');
    for (const marker of ['WROTE-HOOK', 'WROTE-DEEP', 'WROTE-GITFILE', 'WROTE-CLAUDE']) expect(sent, marker).toContain(`${marker}\\n`);
    expect(readFileSync(join(box.cwd, 'wt/.git'), 'utf8')).toBe('gitdir: /tmp/elsewhere\n');
  }, 120_000);
});

describe('the nested walk', () => {
  test('finds directories and .git files in any case, follows no link, does not enter what it found, and says when its bound stopped it', () => {
    const root = mkdtempSync(join(tmpdir(), 'rxagent-nested-'));
    try {
      mkdirSync(join(root, 'a/b/.GIT/modules/x'), { recursive: true });
      writeFileSync(join(root, 'a/b/.GIT/modules/x/.git'), 'gitdir: x\n'); // inside a found one: not listed
      mkdirSync(join(root, 'c'));
      writeFileSync(join(root, 'c/.git'), 'gitdir: ../a/b/.GIT\n');
      mkdirSync(join(root, '.git/sub/.rxagent'), { recursive: true }); // top level: protectedDirs.ts's job
      // A link to a directory holding `.claude` is not walked into.
      mkdirSync(join(root, 'in'));
      mkdirSync(join(tmpdir(), 'rxagent-nested-target/.claude'), { recursive: true });
      symlinkSync(join(tmpdir(), 'rxagent-nested-target'), join(root, 'in/link'));
      const walk = nestedProtectedOf(root);
      expect(walk.truncated).toBe(false);
      expect([...walk.found].sort()).toEqual([join(root, 'a/b/.GIT'), join(root, 'c/.git')]);
      expect(nestedProtectedOf(root, 3).truncated).toBe(true);
    } finally {
      rmSync(root, { recursive: true, force: true });
      rmSync(join(tmpdir(), 'rxagent-nested-target'), { recursive: true, force: true });
    }
  });
});

describe.runIf(haveSandbox)('a root past the bound', () => {
  test('the call says in its result, and once on stderr, that nested folders past the bound are not protected', async () => {
    const box = makeSandbox({ 'a/1': '', 'a/2': '', 'a/3': '', 'a/4': '', 'z/.git/config': CONFIG });
    const workspace = createWorkspace({ cwd: box.cwd });
    const sandbox = createSandbox({ platform: process.platform, roots: workspace.roots, nestedWalkMaxEntries: 3 });
    const bash = bashTool(workspace, { sandbox, permissionMode: 'acceptEdits' });
    // Commands that write: a read-only one gets a read-only workspace and needs no walk.
    const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const first = String(await runTool(bash, { command: 'touch f && echo hi' }));
      const second = String(await runTool(bash, { command: 'touch g' }));
      expect(first).toMatch(/^hi\n\[Sandbox: .* has more than 3 entries; .*not protected from this command\.\]\n\[exit code 0\]$/);
      expect(second).toMatch(/^\[Sandbox: .*not protected from this command\.\]\n\[exit code 0\]$/);
      expect(stderr.mock.calls.filter(([text]) => String(text).includes('has more than 3 entries'))).toHaveLength(1);
    } finally {
      stderr.mockRestore();
    }
  }, 60_000);
});
