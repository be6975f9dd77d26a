/**
 * A settings file's `permissions.defaultMode`, with the SDK as the host (it passes
 * `--permission-mode` only when its `permissionMode` option is set, so a program that leaves it
 * out gets the settings' default, as with Claude Code). Claude Code's rules (the SDK's own
 * `filterEscalatingDefaultMode` documents them): the flag wins over settings; the highest file
 * that sets a mode decides, except that `bypassPermissions`/`auto` are not taken from project or
 * local files and `acceptEdits` not from the committed project file: then the run starts in
 * `default`.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { makeSandbox } from '../cli/helpers.js';
import { assertBuilt, removeSandboxes, resultOf, runQuery } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const call = (name: 'Bash' | 'Write', input: Record<string, unknown>) => ({ kind: 'message' as const, blocks: [{ type: 'tool_use' as const, id: 'tu_1', name, input }] });
const answer = (text: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }] });
const modeFile = (mode: string) => JSON.stringify({ permissions: { defaultMode: mode } });
const initMode = (messages: readonly SDKMessage[]) => {
  const init = messages.find((m) => m.type === 'system' && m.subtype === 'init');
  return init?.type === 'system' && init.subtype === 'init' ? init.permissionMode : undefined;
};

/** A sandbox with `files` in the workspace and `~/.claude/settings.json` choosing `userMode`. */
function withUserMode(userMode: string, files: Readonly<Record<string, string>> = {}) {
  const sandbox = makeSandbox(files);
  mkdirSync(join(sandbox.home, '.claude'), { recursive: true });
  writeFileSync(join(sandbox.home, '.claude', 'settings.json'), modeFile(userMode));
  return sandbox;
}
const notTaken = (file: string, mode: string, where: 'project' | 'local') =>
  `${file}: permissions.defaultMode "${mode}" is not taken from ${where} settings (as in Claude Code); the run starts in default mode.`;

describe('permissions.defaultMode from settings files', () => {
  test('acceptEdits from .claude/settings.local.json: init says so and a Write goes through without asking', async () => {
    const { messages, cwd, stderr } = await runQuery([call('Write', { file_path: 'made.txt', content: 'x' }), answer('done')], 'write a file', {}, {
      files: { '.claude/settings.local.json': modeFile('acceptEdits') },
    });
    expect(initMode(messages)).toBe('acceptEdits');
    expect(existsSync(join(cwd, 'made.txt'))).toBe(true);
    expect(resultOf(messages)[0]).toMatchObject({ subtype: 'success', permission_denials: [] });
    expect(stderr).not.toContain('permissions.defaultMode');
  });

  test("the SDK's permissionMode (--permission-mode) wins over the settings' default", async () => {
    const { messages, cwd } = await runQuery([call('Write', { file_path: 'made.txt', content: 'x' }), answer('refused')], 'write a file', { permissionMode: 'default' }, {
      files: { '.claude/settings.local.json': modeFile('acceptEdits') },
    });
    expect(initMode(messages)).toBe('default');
    expect(existsSync(join(cwd, 'made.txt'))).toBe(false);
    expect(resultOf(messages)[0]?.permission_denials).toEqual([{ tool_name: 'Write', tool_use_id: 'tu_1', tool_input: { file_path: 'made.txt', content: 'x' } }]);
  });

  test('escalating modes from the repository are not taken: acceptEdits from the committed file, bypassPermissions from the local one', async () => {
    const committed = await runQuery([call('Write', { file_path: 'made.txt', content: 'x' }), answer('refused')], 'write a file', {}, {
      files: { '.claude/settings.json': modeFile('acceptEdits') },
    });
    expect(initMode(committed.messages)).toBe('default');
    expect(existsSync(join(committed.cwd, 'made.txt'))).toBe(false);
    expect(committed.stderr).toContain(notTaken(join(committed.cwd, '.claude', 'settings.json'), 'acceptEdits', 'project'));

    const local = await runQuery([call('Bash', { command: 'touch ran.txt' }), answer('refused')], 'run it', {}, {
      files: { '.claude/settings.json': modeFile('plan'), '.claude/settings.local.json': modeFile('bypassPermissions') },
    });
    expect(initMode(local.messages)).toBe('default');
    expect(existsSync(join(local.cwd, 'ran.txt'))).toBe(false);
    expect(local.stderr).toContain(notTaken(join(local.cwd, '.claude', 'settings.local.json'), 'bypassPermissions', 'local'));
  });

  test('~/.claude/settings.json bypassPermissions is taken; a project file above it decides instead, and a refused one leaves default, not the user mode', async () => {
    const user = withUserMode('bypassPermissions');
    const bypass = await runQuery([call('Bash', { command: 'touch ran.txt' }), answer('ran')], 'run it', {}, { sandbox: user });
    expect(initMode(bypass.messages)).toBe('bypassPermissions');
    expect(existsSync(join(user.cwd, 'ran.txt'))).toBe(true);
    expect(bypass.stderr).not.toContain('permissions.defaultMode');

    // plan is not escalating: a repository may choose it, and the project is above the user.
    const planned = await runQuery([answer('planned')], 'hi', {}, { sandbox: withUserMode('bypassPermissions', { '.claude/settings.json': modeFile('plan') }) });
    expect(initMode(planned.messages)).toBe('plan');

    const refused = await runQuery([answer('asked')], 'hi', {}, { sandbox: withUserMode('bypassPermissions', { '.claude/settings.json': modeFile('acceptEdits') }) });
    expect(initMode(refused.messages)).toBe('default');
  });

  test("the SDK's settings option (--settings) is above the repository's files and may choose bypassPermissions", async () => {
    const { messages, cwd } = await runQuery([call('Bash', { command: 'touch ran.txt' }), answer('ran')], 'run it', { settings: { permissions: { defaultMode: 'bypassPermissions' } } }, {
      files: { '.claude/settings.local.json': modeFile('plan') },
    });
    expect(initMode(messages)).toBe('bypassPermissions');
    expect(existsSync(join(cwd, 'ran.txt'))).toBe(true);
  });

  test('an invalid defaultMode in a .claude file: that file is ignored with one warning naming it, the run goes on', async () => {
    const { messages, stderr } = await runQuery([answer('fine')], 'hi', {}, {
      files: { '.claude/settings.json': JSON.stringify({ permissions: { defaultMode: 'yolo', allow: ['Bash'] } }) },
    });
    expect(initMode(messages)).toBe('default');
    expect(stderr).toMatch(/settings file \S+\.claude\/settings\.json is invalid: - permissions\.defaultMode: .* \(file ignored\)/);
    expect(resultOf(messages)[0]).toMatchObject({ subtype: 'success', result: 'fine' });
  });
});
