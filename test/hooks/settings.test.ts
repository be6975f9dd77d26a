import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { ConfigurationError } from '../../src/errors.js';
import { loadSettings } from '../../src/hooks/settings.js';
import { makeTempDir } from '../builtin/helpers.js';

let dir: string;
let home: string;
let work: string;
let cleanup: () => Promise<void>;

beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('rxagent-settings-'));
  home = join(dir, 'home');
  work = join(dir, 'work');
  await mkdir(join(home, '.rxagent'), { recursive: true });
  await mkdir(join(work, '.rxagent'), { recursive: true });
});
afterEach(() => cleanup());

const hook = (command: string) => ({ type: 'command', command });

describe('loadSettings', () => {
  test('no files: empty settings', async () => {
    expect(await loadSettings({ cwd: work, homeDir: join(dir, 'nobody') })).toEqual({
      hooks: {},
      permissions: { allow: [], deny: [], ask: [] },
      sandbox: {},
      files: [],
      env: {},
      warnings: [],
    });
  });

  test('user, workspace and explicit files merge: hooks and rules concatenated in that order', async () => {
    await writeFile(
      join(home, '.rxagent', 'settings.json'),
      JSON.stringify({ model: 'ignored-key', hooks: { Stop: [{ hooks: [hook('user-stop')] }] }, permissions: { allow: ['Read'], deny: ['Bash(rm:*)'] } }),
    );
    await writeFile(
      join(work, '.rxagent', 'settings.json'),
      JSON.stringify({ hooks: { Stop: [{ hooks: [hook('ws-stop')] }], PreToolUse: [{ matcher: 'Bash', hooks: [{ ...hook('ws-pre'), timeout: 5 }] }] }, permissions: { allow: ['Bash(npm test)'], ask: ['Edit'] } }),
    );
    await writeFile(join(work, 'extra.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [hook('explicit-stop')] }] }, permissions: { deny: ['Write'] } }));
    const s = await loadSettings({ cwd: work, homeDir: home, settingsFile: 'extra.json' });
    expect(s.hooks.Stop?.map((g) => g.hooks[0] && 'command' in g.hooks[0] && g.hooks[0].command)).toEqual(['user-stop', 'ws-stop', 'explicit-stop']);
    expect(s.hooks.PreToolUse).toEqual([{ matcher: 'Bash', hooks: [{ type: 'command', command: 'ws-pre', timeout: 5 }] }]);
    expect(s.permissions).toEqual({ allow: ['Read', 'Bash(npm test)'], deny: ['Bash(rm:*)', 'Write'], ask: ['Edit'] });
    expect(s.files).toEqual([join(home, '.rxagent', 'settings.json'), join(work, '.rxagent', 'settings.json'), join(work, 'extra.json')]);
  });

  test('errors name the file: bad JSON, bad shape, bad rule, bad matcher, missing explicit file', async () => {
    const file = join(work, '.rxagent', 'settings.json');
    await writeFile(file, '{ "hooks": ');
    await expect(loadSettings({ cwd: work, homeDir: home })).rejects.toThrow(new RegExp(`settings file ${file} is not valid JSON`));
    await writeFile(file, JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command' }] }] } }));
    const shape = loadSettings({ cwd: work, homeDir: home });
    await expect(shape).rejects.toBeInstanceOf(ConfigurationError);
    await expect(shape).rejects.toThrow(/is invalid:\n- hooks\.PreToolUse\.0\.hooks\.0\.command/);
    await writeFile(file, JSON.stringify({ hooks: { PreToolUse: [{ hooks: [{ type: 'http', url: 'x' }] }] } }));
    await expect(loadSettings({ cwd: work, homeDir: home })).rejects.toThrow(/is invalid/);
    await writeFile(file, JSON.stringify({ permissions: { allow: ['Bash(ls'] } }));
    await expect(loadSettings({ cwd: work, homeDir: home })).rejects.toThrow(/settings\.json: permissions\.allow: invalid permission rule "Bash\(ls"/);
    await writeFile(file, JSON.stringify({ hooks: { PreToolUse: [{ matcher: '(', hooks: [] }] } }));
    await expect(loadSettings({ cwd: work, homeDir: home })).rejects.toThrow(/hooks\.PreToolUse: hook matcher/);
    await writeFile(file, '{}');
    await expect(loadSettings({ cwd: work, homeDir: home, settingsFile: 'missing.json' })).rejects.toThrow(/cannot read settings file .*missing\.json/);
  });

  test('unsupported events are ignored with a warning', async () => {
    await writeFile(join(work, '.rxagent', 'settings.json'), JSON.stringify({ hooks: { Setup: [{ hooks: [hook('x')] }] } }));
    const s = await loadSettings({ cwd: work, homeDir: home });
    expect(s.hooks).toEqual({});
    expect(s.warnings).toEqual([`${join(work, '.rxagent', 'settings.json')}: hook event Setup is not supported; its hooks are ignored.`]);
  });
});
