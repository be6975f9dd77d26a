/**
 * `list_permission_rules` (the SDK's `SDKControlListPermissionRulesResponse`, sent by its
 * `listPermissionRules()`): each rule the session holds with its own source: each settings file,
 * `--allowedTools` / `--disallowedTools`, the host's `apply_flag_settings`, and the answer
 * type-checks against the SDK's.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { assertBuilt, makeSandbox, removeSandboxes } from '../cli/helpers.js';
import { responseTo, startStreamHost } from '../cli/streamHost.js';
import { strictDiagnostics } from './compileSource.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

test('every rule with its source: user, project and local files, CLI flags, the flag layer', async () => {
  const sandbox = makeSandbox({ 'sub/keep.txt': 'x' });
  const writeSettings = (file: string, permissions: Record<string, string[]>) => {
    mkdirSync(join(file, '..'), { recursive: true });
    writeFileSync(file, JSON.stringify({ permissions }));
  };
  writeSettings(join(sandbox.home, '.claude', 'settings.json'), { allow: ['Bash(npm test)'] });
  writeSettings(join(sandbox.cwd, '.claude', 'settings.json'), { ask: ['Write'] });
  writeSettings(join(sandbox.cwd, '.claude', 'settings.local.json'), { deny: ['Read(./.env)'] });
  const server = await startScriptedServer({ script: [] });
  const host = startStreamHost(['--allowedTools', 'Glob', '--disallowedTools', 'WebFetch', '--add-dir', 'sub'], { ...sandbox, baseURL: server.baseURL });
  try {
    host.send({ type: 'control_request', request_id: 'init', request: { subtype: 'initialize' } });
    await host.waitFor(responseTo('init'), 'the initialize answer');
    host.send({ type: 'control_request', request_id: 'f', request: { subtype: 'apply_flag_settings', settings: { permissions: { deny: ['Bash(rm:*)'] } } } });
    await host.waitFor(responseTo('f'), 'the apply_flag_settings answer');
    host.send({ type: 'control_request', request_id: 'r', request: { subtype: 'list_permission_rules' } });
    const answer = (await host.waitFor(responseTo('r'), 'the list_permission_rules answer'))['response'] as { subtype: string; response: { state: { rules: unknown[] } } };
    expect(answer.subtype).toBe('success');
    expect(answer.response.state).toMatchObject({ originalCwd: sandbox.cwd, managedOnly: false, workspaceDirectories: [{ path: join(sandbox.cwd, 'sub'), source: 'cliArg' }] });
    expect(answer.response.state.rules).toEqual([
      { behavior: 'allow', source: 'userSettings', rule: 'Bash(npm test)', editability: 'persistent' },
      { behavior: 'ask', source: 'projectSettings', rule: 'Write', editability: 'persistent' },
      { behavior: 'deny', source: 'localSettings', rule: 'Read(./.env)', editability: 'persistent' },
      { behavior: 'deny', source: 'flagSettings', rule: 'Bash(rm:*)', editability: 'readonly' },
      { behavior: 'allow', source: 'cliArg', rule: 'Glob', editability: 'session' },
      { behavior: 'deny', source: 'cliArg', rule: 'WebFetch', editability: 'session' },
    ]);
    const source = `import type { SDKControlListPermissionRulesResponse } from '@anthropic-ai/claude-agent-sdk';\nexport const answer = ${JSON.stringify(answer.response)} satisfies SDKControlListPermissionRulesResponse;`;
    expect(strictDiagnostics(source).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
    host.end();
    expect((await host.done).code).toBe(0);
  } finally {
    host.end();
    await server.close();
  }
}, 60_000);

test('get_hooks_listing: settings-file hooks and the host callbacks by event, with their sources; control characters shown escaped', async () => {
  const sandbox = makeSandbox();
  const hooks = (event: string, matcher: string | undefined, command: string) => ({ hooks: { [event]: [{ ...(matcher ? { matcher } : {}), hooks: [{ type: 'command', command, timeout: 5 }] }] } });
  mkdirSync(join(sandbox.home, '.claude'), { recursive: true });
  writeFileSync(join(sandbox.home, '.claude', 'settings.json'), JSON.stringify(hooks('PreToolUse', 'Bash', 'echo \u001b[2Jcleared')));
  mkdirSync(join(sandbox.cwd, '.claude'), { recursive: true });
  writeFileSync(join(sandbox.cwd, '.claude', 'settings.json'), JSON.stringify(hooks('Stop', undefined, 'true')));
  const server = await startScriptedServer({ script: [] });
  const host = startStreamHost([], { ...sandbox, baseURL: server.baseURL });
  try {
    host.send({ type: 'control_request', request_id: 'init', request: { subtype: 'initialize', hooks: { PreToolUse: [{ matcher: 'Write', hookCallbackIds: ['cb1'] }] } } });
    await host.waitFor(responseTo('init'), 'the initialize answer');
    host.send({ type: 'control_request', request_id: 'h', request: { subtype: 'get_hooks_listing' } });
    const answer = (await host.waitFor(responseTo('h'), 'the get_hooks_listing answer'))['response'] as { subtype: string; response: Record<string, unknown> };
    expect(answer.subtype).toBe('success');
    expect(answer.response['events']).toEqual([
      expect.objectContaining({ name: 'PreToolUse', supportsMatcher: true, hookCount: 2 }),
      expect.objectContaining({ name: 'Stop', supportsMatcher: false, hookCount: 1 }),
    ]);
    expect(answer.response['hooks']).toEqual([
      { event: 'PreToolUse', matcher: 'Bash', source: 'userSettings', sourceLabel: 'User settings', type: 'command', displayText: 'echo \\u001b[2Jcleared', commandText: 'echo \\u001b[2Jcleared', contentLabel: 'Command', timeout: 5 },
      expect.objectContaining({ event: 'PreToolUse', matcher: 'Write', source: 'sessionHook', type: 'callback' }),
      expect.objectContaining({ event: 'Stop', matcher: '', source: 'projectSettings', commandText: 'true' }),
    ]);
    expect((answer.response['eventCatalog'] as unknown[]).length).toBeGreaterThanOrEqual(12);
    expect(answer.response['policy']).toMatchObject({ disabledByPolicy: false, allDisabled: false, policyHookCount: 0 });
    host.end();
    expect((await host.done).code).toBe(0);
  } finally {
    host.end();
    await server.close();
  }
}, 60_000);
