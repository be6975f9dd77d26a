/**
 * Session hook events from a repository's `.claude/settings.json`, through the built command:
 * SessionStart's output is context for the model, SessionEnd runs as the command ends (its input
 * says why), PermissionRequest answers the question nobody could answer in print mode.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { assertBuilt, makeSandbox, removeSandboxes, runAgainst } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const text = (t: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text: t }] });
const bash = (command: string) => ({ kind: 'message' as const, blocks: [{ type: 'tool_use' as const, name: 'Bash', input: { command } }] });
const hook = (command: string) => [{ hooks: [{ type: 'command', command }] }];

describe('session hook events in settings files', () => {
  test('SessionStart stdout is context; SessionEnd receives its input at the end; PermissionRequest allows a call -p would refuse', async () => {
    const settings = {
      hooks: {
        SessionStart: hook(`node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log('SESSION CONTEXT from '+JSON.parse(s).source))"`),
        SessionEnd: hook('cat > session-end.json'),
        PermissionRequest: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `echo '{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}'` }] }],
      },
    };
    const box = makeSandbox({ '.claude/settings.json': JSON.stringify(settings) });
    const run = await runAgainst([bash('touch made-by-bash.txt'), text('done')], ['-p', 'go', '--no-sandbox'], box);
    expect(run.code).toBe(0);
    expect(JSON.stringify(run.server.requests[0]?.body?.system)).toContain('SESSION CONTEXT from startup');
    expect(existsSync(join(box.cwd, 'made-by-bash.txt'))).toBe(true);
    const ended = JSON.parse(readFileSync(join(box.cwd, 'session-end.json'), 'utf8')) as Record<string, unknown>;
    expect(ended).toMatchObject({ hook_event_name: 'SessionEnd', reason: 'other', cwd: box.cwd });
  });

  test('without a PermissionRequest hook the same call is refused in -p (nobody to ask), and no hook file appears', async () => {
    const box = makeSandbox();
    const run = await runAgainst([bash('touch made-by-bash.txt'), text('done')], ['-p', 'go', '--no-sandbox'], box);
    expect(run.code).toBe(0);
    expect(existsSync(join(box.cwd, 'made-by-bash.txt'))).toBe(false);
    expect(JSON.stringify(run.server.requests[1]?.body?.messages.at(-1))).toContain('is_error');
  });
});
