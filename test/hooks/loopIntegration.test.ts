/**
 * Settings-file hooks, the permission policy and the built-in tools, through the real loop over
 * HTTP (scripted server): a Stop hook that blocks once and then allows; PreToolUse hooks and
 * permission modes deciding a Write.
 */
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createHookRunners } from '../../src/hooks/createHookRunners.js';
import { loadSettings } from '../../src/hooks/settings.js';
import { createPermissionPolicy } from '../../src/permissions/createPermissionPolicy.js';
import type { PermissionMode } from '../../src/permissions/modes.js';
import { createBuiltinTools } from '../../src/tools/builtin/createBuiltinTools.js';
import { createWorkspace } from '../../src/tools/builtin/workspace.js';
import { makeTempDir } from '../builtin/helpers.js';
import { message, runOverHttp, text, toolUse, transitions } from '../loop/helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('rxagent-hooks-loop-'));
  await mkdir(join(dir, '.rxagent'));
});
afterEach(() => cleanup());

const requestText = (body: unknown): string => JSON.stringify(body);

async function setup(settings: object, mode: PermissionMode = 'default') {
  await writeFile(join(dir, '.rxagent', 'settings.json'), JSON.stringify(settings));
  const loaded = await loadSettings({ cwd: dir, homeDir: join(dir, 'no-home') });
  const runners = createHookRunners({ hooks: loaded.hooks, cwd: dir, sessionId: 'loop-test' });
  return {
    hooks: { ...runners.toolHooks, ...runners.loopHooks },
    canUseTool: createPermissionPolicy({ mode, rules: loaded.permissions, cwd: dir }),
    tools: createBuiltinTools(createWorkspace({ cwd: dir })),
  };
}

describe('hooks and permissions through the loop', () => {
  test('a Stop hook blocks once (its reason goes back to the model), then allows', async () => {
    const hook = join(dir, 'stop-hook.mjs');
    await writeFile(
      hook,
      `import { readFileSync } from 'node:fs';
const input = JSON.parse(readFileSync(0, 'utf8'));
if (!input.stop_hook_active) { process.stderr.write('Run the test suite before finishing.'); process.exit(2); }`,
    );
    const opts = await setup({ hooks: { Stop: [{ hooks: [{ type: 'command', command: `node ${JSON.stringify(hook)}` }] }] } });
    const run = await runOverHttp([message([text('Done.')]), message([text('Tests pass. Done.')])], opts);
    expect(run.terminal.reason).toBe('completed');
    expect(run.requests).toHaveLength(2);
    expect(transitions(run.events)).toEqual(['stop_hook_blocking']);
    expect(requestText(run.requests[1]?.body)).toContain('Run the test suite before finishing.');
  });

  test('default mode without a terminal: Write is denied and nothing is written', async () => {
    const opts = await setup({});
    const run = await runOverHttp(
      [message([toolUse('Write', { file_path: 'out.txt', content: 'hi' }, 'toolu_w')]), message([text('ok')])],
      opts,
    );
    expect(run.terminal.reason).toBe('completed');
    expect(requestText(run.requests[1]?.body)).toMatch(/needs the user's approval/);
    await expect(stat(join(dir, 'out.txt'))).rejects.toThrow(/ENOENT/);
  });

  test('acceptEdits: Write runs; a PreToolUse settings hook can still block it', async () => {
    const opts = await setup({}, 'acceptEdits');
    const run = await runOverHttp(
      [message([toolUse('Write', { file_path: 'out.txt', content: 'hi' }, 'toolu_w')]), message([text('ok')])],
      opts,
    );
    expect(run.terminal.reason).toBe('completed');
    expect(await readFile(join(dir, 'out.txt'), 'utf8')).toBe('hi');

    const blocked = await setup(
      { hooks: { PreToolUse: [{ matcher: 'Write|Edit', hooks: [{ type: 'command', command: 'echo "writes are frozen" >&2; exit 2' }] }] } },
      'acceptEdits',
    );
    const run2 = await runOverHttp(
      [message([toolUse('Write', { file_path: 'frozen.txt', content: 'x' }, 'toolu_f')]), message([text('ok')])],
      blocked,
    );
    expect(requestText(run2.requests[1]?.body)).toContain('writes are frozen');
    await expect(stat(join(dir, 'frozen.txt'))).rejects.toThrow(/ENOENT/);
  });

  test('deny rules from settings hold in bypassPermissions; confinement holds too', async () => {
    const opts = await setup({ permissions: { deny: ['Bash(rm:*)'] } }, 'bypassPermissions');
    await writeFile(join(dir, 'keep.txt'), 'x');
    const run = await runOverHttp(
      [
        message([
          toolUse('Bash', { command: 'rm keep.txt' }, 'toolu_rm'),
          toolUse('Read', { file_path: '/etc/hostname' }, 'toolu_out'),
        ]),
        message([text('ok')]),
      ],
      opts,
    );
    const body = requestText(run.requests[1]?.body);
    expect(body).toMatch(/deny rule `Bash\(rm:\*\)`/);
    expect(body).toMatch(/outside the workspace/);
    expect(await readFile(join(dir, 'keep.txt'), 'utf8')).toBe('x');
  });
});
