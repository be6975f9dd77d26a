/**
 * A settings file is text someone else may have written (a cloned repository's `.claude/`): its
 * hooks must not flood the model's context or hold a run for days.
 * - A block message (exit 2's stderr, `decision: "block"`'s reason, a `continue: false` stop
 *   reason, `additionalContext`) reaches the model cut like Bash output, saying how much was cut.
 * - A hook's `timeout` is clamped to MAX_HOOK_TIMEOUT_SECONDS; a silly or missing one gets the default.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { createHookRunners } from '../../src/hooks/createHookRunners.js';
import {
  cutHookMessage,
  DEFAULT_HOOK_TIMEOUT_SECONDS,
  HOOK_MESSAGE_MAX_CHARS,
  hookTimeoutMs,
  MAX_HOOK_TIMEOUT_SECONDS,
  runHook,
} from '../../src/hooks/runHook.js';
import { loadSettings } from '../../src/hooks/settings.js';
import type { HookInput } from '../../src/hooks/types.js';
import { createPermissionPolicy } from '../../src/permissions/createPermissionPolicy.js';
import { createBuiltinTools } from '../../src/tools/builtin/createBuiltinTools.js';
import { createWorkspace } from '../../src/tools/builtin/workspace.js';
import { makeTempDir } from '../builtin/helpers.js';
import { message, runOverHttp, text, toolUse } from '../loop/helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('rxagent-hook-limits-'));
});
afterEach(() => cleanup());

/** A node hook script printing `length` characters (ending in a marker) the way `how` says. */
async function floodingHook(how: 'exit2' | 'block-json' | 'stop-json' | 'context-json', length: number): Promise<string> {
  const file = join(dir, `${how}.mjs`);
  const body = `const big = 'x'.repeat(${length - 'THE-END'.length}) + 'THE-END';\n`;
  const act = {
    exit2: `process.stderr.write(big); process.exit(2);`,
    'block-json': `process.stdout.write(JSON.stringify({ decision: 'block', reason: big }));`,
    'stop-json': `process.stdout.write(JSON.stringify({ continue: false, stopReason: big }));`,
    'context-json': `process.stdout.write(JSON.stringify({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: big } }));`,
  }[how];
  await writeFile(file, `${body}${act}\n`);
  return `node ${JSON.stringify(file)}`;
}

const preToolUseInput = (): HookInput => ({
  session_id: 's',
  transcript_path: undefined,
  cwd: dir,
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'ls' },
  tool_use_id: 'toolu_1',
}) as HookInput;

const cutNote = (length: number) => `[Hook message cut: ${length - HOOK_MESSAGE_MAX_CHARS} more characters not shown.]`;

describe('hook block messages are cut like Bash output', () => {
  test('cutHookMessage keeps short text and cuts long text at the limit, saying how much', () => {
    const short = 'y'.repeat(HOOK_MESSAGE_MAX_CHARS);
    expect(cutHookMessage(short)).toBe(short);
    const long = 'z'.repeat(HOOK_MESSAGE_MAX_CHARS + 1234);
    const cut = cutHookMessage(long);
    expect(cut.startsWith('z'.repeat(HOOK_MESSAGE_MAX_CHARS) + '\n')).toBe(true);
    expect(cut.endsWith(cutNote(long.length))).toBe(true);
    expect(cut.length).toBeLessThan(HOOK_MESSAGE_MAX_CHARS + 100);
  });

  test.each([
    ['exit2', 'block'],
    ['block-json', 'block'],
    ['stop-json', 'preventContinuation'],
  ] as const)('a command hook (%s) sending 200,000 characters: %s is cut', async (how, field) => {
    const outcome = await runHook({ type: 'command', command: await floodingHook(how, 200_000) }, preToolUseInput(), { cwd: dir });
    const message = outcome[field];
    expect(message).toBeDefined();
    expect(message).not.toContain('THE-END');
    expect(message?.endsWith(cutNote(200_000))).toBe(true);
    expect(message?.length).toBeLessThan(HOOK_MESSAGE_MAX_CHARS + 100);
  });

  test('a UserPromptSubmit hook flooding additionalContext is cut too', async () => {
    const input = { session_id: 's', transcript_path: undefined, cwd: dir, hook_event_name: 'UserPromptSubmit', prompt: 'hi' } as HookInput;
    const outcome = await runHook({ type: 'command', command: await floodingHook('context-json', 100_000) }, input, { cwd: dir });
    expect(outcome.additionalContext?.endsWith(cutNote(100_000))).toBe(true);
    expect(outcome.additionalContext).not.toContain('THE-END');
  });

  test('a callback hook returning a huge block reason is cut the same way', async () => {
    const reason = 'c'.repeat(90_000);
    const outcome = await runHook({ type: 'callback', callback: () => ({ decision: 'block', reason }) }, preToolUseInput(), { cwd: dir });
    expect(outcome.block).toBe(`${'c'.repeat(HOOK_MESSAGE_MAX_CHARS)}\n${cutNote(90_000)}`);
  });

  test('through the loop: a PreToolUse settings hook blocking with 200,000 characters sends the model the cut text', async () => {
    await mkdir(join(dir, '.rxagent'));
    const command = await floodingHook('exit2', 200_000);
    await writeFile(join(dir, '.rxagent', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command }] }] } }));
    const loaded = await loadSettings({ cwd: dir, homeDir: join(dir, 'no-home') });
    const runners = createHookRunners({ hooks: loaded.hooks, cwd: dir, sessionId: 'hook-limits' });
    const run = await runOverHttp([message([toolUse('Bash', { command: 'echo hi' }, 'toolu_b')]), message([text('ok')])], {
      hooks: { ...runners.toolHooks, ...runners.loopHooks },
      canUseTool: createPermissionPolicy({ mode: 'bypassPermissions', rules: loaded.permissions, cwd: dir }),
      tools: createBuiltinTools(createWorkspace({ cwd: dir })),
    });
    expect(run.terminal.reason).toBe('completed');
    const body = JSON.stringify(run.requests[1]?.body);
    expect(body).toContain(cutNote(200_000));
    expect(body).not.toContain('THE-END');
    // The whole second request stays near the cut size (the block is its only big part).
    expect(body.length).toBeLessThan(HOOK_MESSAGE_MAX_CHARS + 20_000);
  });
});

describe('hook timeouts are clamped', () => {
  test.each([
    [undefined, DEFAULT_HOOK_TIMEOUT_SECONDS],
    [0, DEFAULT_HOOK_TIMEOUT_SECONDS],
    [-5, DEFAULT_HOOK_TIMEOUT_SECONDS],
    [Number.NaN, DEFAULT_HOOK_TIMEOUT_SECONDS],
    [Number.POSITIVE_INFINITY, DEFAULT_HOOK_TIMEOUT_SECONDS],
    [5, 5],
    [MAX_HOOK_TIMEOUT_SECONDS, MAX_HOOK_TIMEOUT_SECONDS],
    [MAX_HOOK_TIMEOUT_SECONDS + 1, MAX_HOOK_TIMEOUT_SECONDS],
    [86_400 * 365, MAX_HOOK_TIMEOUT_SECONDS],
  ])('timeout %s s → %s s', (given, seconds) => {
    expect(hookTimeoutMs(given)).toBe(seconds * 1000);
  });

  test('a settings timeout of a year still ends a hanging hook at the clamp (virtual time)', async () => {
    vi.useFakeTimers();
    try {
      let settled = false;
      // A callback hook that never answers, with a year-long timeout: only the clamp ends it.
      const outcome = runHook({ type: 'callback', timeout: 86_400 * 365, callback: () => new Promise(() => undefined) }, preToolUseInput(), { cwd: dir });
      void outcome.then(() => (settled = true));
      await vi.advanceTimersByTimeAsync(MAX_HOOK_TIMEOUT_SECONDS * 1000 - 1);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(settled).toBe(true);
      expect((await outcome).warnings.join('\n')).toMatch(/PreToolUse hook callback timed out; its result was ignored/);
    } finally {
      vi.useRealTimers();
    }
  });

  test('a command hook: the clamped timeout reaches the process group (killed, a warning, no block)', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    try {
      const started = join(dir, 'started');
      let settled = false;
      const outcome = runHook(
        { type: 'command', timeout: 86_400 * 365, command: `echo $$ > ${JSON.stringify(started)}; exec sleep 100000` },
        preToolUseInput(),
        { cwd: dir, killGraceMs: 10 },
      );
      void outcome.then(() => (settled = true));
      // Wait for the process itself (real I/O), not for a clock.
      const { existsSync } = await import('node:fs');
      while (!existsSync(started)) await new Promise((resolve) => setImmediate(resolve));
      await vi.advanceTimersByTimeAsync(MAX_HOOK_TIMEOUT_SECONDS * 1000 - 1);
      expect(settled).toBe(false);
      await vi.advanceTimersByTimeAsync(1 + 10);
      const result = await outcome;
      expect(result.block).toBeUndefined();
      expect(result.warnings.join('\n')).toMatch(/timed out/i);
    } finally {
      vi.useRealTimers();
    }
  });
});
