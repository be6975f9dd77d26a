/**
 * The SDK's `managedSettings` option: the policy tier a parent process supplies, passed as
 * `--managed-settings <json>`. Before, rxagent exited 2 on the flag, so an SDK program using the
 * option did not run at all. Claude Code takes this tier restrictive-only (sdk.d.ts): it may
 * forbid above every other source but never widen, so its deny and ask rules apply and what it
 * would widen (an allow rule, a mode, a model) is left out, with a warning naming it.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { assertBuilt, removeSandboxes, resultOf, runQuery } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const write = { kind: 'message' as const, blocks: [{ type: 'tool_use' as const, id: 'tu_1', name: 'Write', input: { file_path: 'made.txt', content: 'x' } }] };
const answer = (text: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }] });

describe('managedSettings (--managed-settings)', () => {
  test('its deny rule wins over an allow in the flag settings, and the run goes on', async () => {
    const { messages, cwd, stderr, server } = await runQuery([write, answer('refused')], 'write a file', {
      settings: { permissions: { allow: ['Write'] } },
      managedSettings: { permissions: { deny: ['Write'] } },
    });
    expect(existsSync(join(cwd, 'made.txt'))).toBe(false);
    // A bare deny name: Write is not even offered (as Claude Code does); the call made anyway is refused.
    expect(server.requests[0]!.body!.tools?.map((t) => t.name)).not.toContain('Write');
    expect(resultOf(messages)[0]).toMatchObject({ subtype: 'success', result: 'refused' });
    expect(stderr).not.toMatch(/Unknown option/);
  });

  test('what would widen is not applied, and a warning says so', async () => {
    const { messages, cwd, stderr } = await runQuery([write, answer('refused')], 'write a file', {
      permissionMode: 'default',
      managedSettings: { permissions: { allow: ['Write'], defaultMode: 'bypassPermissions' }, model: 'claude-from-policy' },
    });
    expect(existsSync(join(cwd, 'made.txt'))).toBe(false);
    expect(resultOf(messages)[0]?.permission_denials).toHaveLength(1);
    expect(stderr).toContain('--managed-settings: permissions.allow, model, permissions.defaultMode not applied');
  });
});
