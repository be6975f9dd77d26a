/**
 * A repository set up for Claude Code, through the built command: `.claude/settings.json` and
 * `.claude/settings.local.json` hooks and rules, `~/.claude/settings.json`, `--setting-sources`,
 * `--settings` as inline JSON, a malformed file (one warning naming it), CLAUDE.md files with an
 * `@import`, custom slash commands; and Claude Code's environment variables for requests.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { assertBuilt, makeSandbox, removeSandboxes, runAgainst } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const text = (t: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text: t }] });
const touch = (name: string) => ({ kind: 'message' as const, blocks: [{ type: 'tool_use' as const, name: 'Bash', input: { command: `touch ${name}` } }] });
const denyHook = (reason: string) => ({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"${reason}"}}'` }] }] } });

function write(root: string, rel: string, content: string): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), content);
}

describe('a repository set up for Claude Code', () => {
  test('.claude/settings.json hooks run; a malformed settings.local.json is one warning naming it, the rest loads', async () => {
    const box = makeSandbox({ '.claude/settings.json': JSON.stringify(denyHook('project hook says no')), '.claude/settings.local.json': '{ not json' });
    const run = await runAgainst([touch('x'), text('ok')], ['-p', 'go', '--dangerously-skip-permissions'], box);
    expect(run.code).toBe(0);
    expect(JSON.stringify(run.server.requests[1]?.body?.messages.at(-1))).toContain('project hook says no');
    const warnings = run.stderr.split('\n').filter((l) => l.includes('settings.local.json'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/warning: .*settings\.local\.json.*not valid JSON/);
  });

  test('--setting-sources project leaves ~/.claude out; --settings takes inline JSON (rules and model)', async () => {
    const box = makeSandbox();
    write(box.home, '.claude/settings.json', JSON.stringify(denyHook('user hook')));
    const run = await runAgainst(
      [touch('made.txt'), text('ok')],
      ['-p', 'go', '--setting-sources', 'project', '--settings', JSON.stringify({ permissions: { allow: ['Bash(touch made.txt)'] }, model: 'claude-haiku-4-5' })],
      box,
    );
    expect(run.code).toBe(0);
    expect(run.server.requests[0]?.body?.model).toBe('claude-haiku-4-5');
    expect(JSON.stringify(run.server.requests[1]?.body?.messages.at(-1))).not.toContain('user hook');
    expect(JSON.stringify(run.server.requests[1]?.body?.messages.at(-1))).not.toContain('is_error');
  });

  test('CLAUDE.md files (user, repository root, cwd) and an @import reach the system prompt, outermost first', async () => {
    const box = makeSandbox({ '.git/HEAD': 'ref: refs/heads/main\n', 'CLAUDE.md': 'ROOT RULE. See @docs/style.md for style.', 'docs/style.md': 'IMPORTED STYLE.', 'pkg/CLAUDE.md': 'PACKAGE RULE.' });
    write(box.home, '.claude/CLAUDE.md', 'USER RULE.');
    const run = await runAgainst([text('ok')], ['-p', 'go'], { ...box, cwd: join(box.cwd, 'pkg') });
    expect(run.code).toBe(0);
    const system = JSON.stringify(run.server.requests[0]?.body?.system);
    expect(system).toMatch(/USER RULE\.[\s\S]*ROOT RULE\.[\s\S]*IMPORTED STYLE\.[\s\S]*PACKAGE RULE\./);
  });

  test('a .claude/commands file is a slash command: /name args becomes its body with $ARGUMENTS', async () => {
    const box = makeSandbox({ '.claude/commands/review.md': '---\ndescription: Review a file\n---\nReview $ARGUMENTS carefully.' });
    const run = await runAgainst([text('ok')], ['-p', '/review src/a.ts', '--output-format', 'stream-json'], box);
    expect(run.code).toBe(0);
    expect(JSON.stringify(run.server.requests[0]?.body?.messages)).toContain('Review src/a.ts carefully.');
    expect(JSON.parse(run.stdout.split('\n')[0] as string)).toMatchObject({ slash_commands: ['clear', 'compact', 'context', 'cost', 'usage', 'review'] });
  });
});

describe("Claude Code's environment variables", () => {
  test('ANTHROPIC_AUTH_TOKEN is sent as a bearer token; ANTHROPIC_CUSTOM_HEADERS, ANTHROPIC_BETAS and --betas as headers', async () => {
    const box = makeSandbox();
    const run = await runAgainst([text('ok')], ['-p', 'go', '--betas', 'beta-two'], {
      ...box,
      env: { ANTHROPIC_API_KEY: '', ANTHROPIC_AUTH_TOKEN: 'token-123', ANTHROPIC_CUSTOM_HEADERS: 'X-Team: blue\nX-Trace: 7', ANTHROPIC_BETAS: 'beta-one' },
    });
    expect(run.code).toBe(0);
    const headers = run.server.requests[0]?.headers ?? {};
    expect(headers['authorization']).toBe('Bearer token-123');
    expect(headers['x-team']).toBe('blue');
    expect(headers['x-trace']).toBe('7');
    expect(headers['anthropic-beta']).toBe('beta-one,beta-two');
  });

  test('no key outside a clone of rxagent: the message does not mention npm start', async () => {
    const box = makeSandbox();
    const run = await runAgainst([text('unused')], ['-p', 'go'], { ...box, env: { ANTHROPIC_API_KEY: '' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('ANTHROPIC_API_KEY is not set');
    expect(run.stderr).not.toContain('npm start');
  });
});
