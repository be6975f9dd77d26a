import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { existsSync } from 'node:fs';
import { eventually } from '../eventually.js';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { createHookRunners, type HookRunnerOptions } from '../../src/hooks/createHookRunners.js';
import { compileToolMatcher } from '../../src/hooks/matcher.js';
import type { HookCallback, HookInput, HooksConfig } from '../../src/hooks/types.js';
import type { AssistantMessage, ToolResultBlock } from '../../src/protocol/content.js';
import { isAlive, makeTempDir } from '../builtin/helpers.js';
import { z } from 'zod';
import { defineTool } from '../../src/tools/defineTool.js';
import { runToolCall } from '../../src/tools/runToolCall.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir('rxagent-hooks-'));
});
afterEach(() => cleanup());

/** Writes a tiny node hook script and returns the command that runs it. */
async function script(name: string, body: string): Promise<string> {
  const file = join(dir, `${name}.mjs`);
  await writeFile(file, `import { readFileSync, writeFileSync } from 'node:fs';\nconst input = JSON.parse(readFileSync(0, 'utf8'));\n${body}\n`);
  return `node ${JSON.stringify(file)}`;
}

const runners = (hooks: HooksConfig, extra: Partial<HookRunnerOptions> = {}) =>
  createHookRunners({ hooks, cwd: dir, sessionId: 'sess-1', transcriptPath: '/t/sess-1.jsonl', permissionMode: 'default', ...extra });

const pre = (r: ReturnType<typeof runners>, toolName = 'Bash', toolInput: unknown = { command: 'ls' }) =>
  r.preToolUse({ toolName, toolInput, toolUseId: 'toolu_1', shared: {} });

const command = (cmd: string, timeout?: number) => ({ type: 'command' as const, command: cmd, ...(timeout ? { timeout } : {}) });

const assistant = (text: string): AssistantMessage =>
  ({ id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } }) as unknown as AssistantMessage;

const stopInput = (stopHookActive = false) => ({
  chainId: 'c',
  depth: 0,
  messages: [],
  lastAssistantMessage: assistant('All done.'),
  stopHookActive,
  signal: new AbortController().signal,
});

describe('matchers', () => {
  test.each([
    [undefined, 'Bash', true],
    ['', 'Read', true],
    ['*', 'Anything', true],
    ['Bash', 'Bash', true],
    ['Bash', 'BashX', false],
    ['Edit|Write', 'Write', true],
    ['Edit|Write', 'Read', false],
    ['mcp__.*', 'mcp__github__search', true],
    ['mcp__.*', 'xmcp__a', false],
    ['Notebook.*|Read', 'Read', true],
  ])('%s against %s → %s', (matcher, tool, expected) => {
    expect(compileToolMatcher(matcher)(tool)).toBe(expected);
  });

  test('an invalid regex is a configuration error', () => {
    expect(() => compileToolMatcher('a(')).toThrow(/not a valid regular expression/);
  });
});

describe('command hooks: input, exit codes and JSON', () => {
  test('the hook gets the event JSON on stdin and runs in the workspace', async () => {
    const cmd = await script('record', `writeFileSync('seen.json', JSON.stringify({ input, cwd: process.cwd() }));`);
    const r = runners({ PreToolUse: [{ matcher: 'Bash', hooks: [command(cmd)] }] });
    expect(await pre(r)).toEqual({});
    const seen = JSON.parse(await readFile(join(dir, 'seen.json'), 'utf8'));
    expect(seen.cwd).toBe(dir);
    expect(seen.input).toEqual({
      session_id: 'sess-1',
      transcript_path: '/t/sess-1.jsonl',
      cwd: dir,
      permission_mode: 'default',
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
      tool_use_id: 'toolu_1',
    });
  });

  test('no matching hook answers synchronously with undefined', () => {
    const r = runners({ PreToolUse: [{ matcher: 'Edit', hooks: [command('exit 2')] }] });
    expect(pre(r, 'Read')).toBeUndefined();
    expect(r.postToolUse({ toolName: 'Read', toolInput: {}, toolUseId: 't', output: 'x', result: { type: 'tool_result', tool_use_id: 't', content: 'x' } as ToolResultBlock })).toBeUndefined();
  });

  test('exit 2 blocks with stderr as the reason', async () => {
    const r = runners({ PreToolUse: [{ hooks: [command('echo "rm is not allowed here" >&2; exit 2')] }] });
    expect(await pre(r)).toEqual({ decision: 'deny', reason: 'rm is not allowed here' });
  });

  test('other exit codes are non-blocking warnings', async () => {
    const warnings: string[] = [];
    const r = runners({ PreToolUse: [{ hooks: [command('echo broken >&2; exit 1')] }] }, { onWarning: (w) => warnings.push(w) });
    expect(await pre(r)).toEqual({});
    expect(warnings).toEqual(['PreToolUse hook "echo broken >&2; exit 1" failed with exit code 1: broken']);
  });

  test('exit 0 JSON: permissionDecision, reason, updatedInput, additionalContext', async () => {
    const cmd = await script(
      'decide',
      `console.log(JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'safe in CI', updatedInput: { command: input.tool_input.command + ' -la' }, additionalContext: 'listing is cheap' } }));`,
    );
    const r = runners({ PreToolUse: [{ matcher: 'Bash', hooks: [command(cmd)] }] });
    expect(await pre(r)).toEqual({
      decision: 'allow',
      reason: 'safe in CI',
      updatedInput: { command: 'ls -la' },
      additionalContext: 'listing is cheap',
    });
  });

  test('exit 0 JSON: decision block, permissionDecision deny/ask, continue false', async () => {
    const block = runners({ PreToolUse: [{ hooks: [command(`echo '{"decision":"block","reason":"not today"}'`)] }] });
    expect(await pre(block)).toEqual({ decision: 'deny', reason: 'not today' });
    const deny = runners({ PreToolUse: [{ hooks: [command(`echo '{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"policy"}}'`)] }] });
    expect(await pre(deny)).toEqual({ decision: 'deny', reason: 'policy' });
    const ask = runners({ PreToolUse: [{ hooks: [command(`echo '{"hookSpecificOutput":{"permissionDecision":"ask"}}'`)] }] });
    expect(await pre(ask)).toEqual({ decision: 'ask' });
    const stop = runners({ PreToolUse: [{ hooks: [command(`echo '{"continue":false,"stopReason":"budget reached"}'`)] }] });
    expect(await pre(stop)).toEqual({ stopContinuation: { reason: 'budget reached' } });
  });

  test('invalid JSON and plain text on exit 0', async () => {
    const warnings: string[] = [];
    const r = runners({ PreToolUse: [{ hooks: [command(`echo '{not json'`), command('echo just a note')] }] }, { onWarning: (w) => warnings.push(w) });
    expect(await pre(r)).toEqual({});
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/printed invalid JSON/);
  });

  test('several matching hooks: deny wins over allow, the last rewrite wins, contexts join', async () => {
    const r = runners({
      PreToolUse: [
        { matcher: 'Bash', hooks: [command(`echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"a"},"additionalContext":"one"}}'`)] },
        { matcher: 'Bash|Edit', hooks: [command(`echo '{"hookSpecificOutput":{"updatedInput":{"command":"b"},"additionalContext":"two"}}'`)] },
        { matcher: 'Read', hooks: [command('exit 2')] },
      ],
    });
    expect(await pre(r)).toEqual({ decision: 'allow', updatedInput: { command: 'b' }, additionalContext: 'one\n\ntwo' });
    const withDeny = runners({ PreToolUse: [{ hooks: [command(`echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`), command('echo no >&2; exit 2')] }] });
    expect(await pre(withDeny)).toEqual({ decision: 'deny', reason: 'no' });
  });

  test('a hook that times out is stopped with its children and reported as a warning', async () => {
    const warnings: string[] = [];
    const pidFile = join(dir, 'pid');
    // 2 s: long enough for a loaded machine to start the shell and write the pid before the timeout.
    // The child sleeps past vitest's hang bound, so a timeout that did nothing fails the test by
    // hanging, and no elapsed-time bound is left for a loaded machine to miss.
    const r = runners({ PreToolUse: [{ hooks: [command(`sleep 300 & echo $! > ${pidFile}; wait`, 2)] }] }, { onWarning: (w) => warnings.push(w), killGraceMs: 200 });
    expect(await pre(r)).toEqual({});
    expect(warnings[0]).toMatch(/timed out/);
    const pid = Number(await readFile(pidFile, 'utf8'));
    await eventually(() => !isAlive(pid), { what: `the hook's child ${pid} exiting` });
  });

  test('unsubscribing a tool call stops its running PreToolUse command hook (no process left for the hook timeout)', async () => {
    const pidFile = join(dir, 'pid');
    const r = runners({ PreToolUse: [{ hooks: [command(`sleep 30 & echo $! > ${pidFile}; wait`)] }] }, { killGraceMs: 200 });
    let called = false;
    const tool = defineTool({ name: 'Bash', description: 'd', inputSchema: z.object({ command: z.string() }), isConcurrencySafe: false, call: () => ((called = true), 'ran') });
    const call = runToolCall({ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } }, { tools: [tool], hooks: { preToolUse: [r.preToolUse] } }).subscribe();
    const pid = await eventually(async () => Number((await readFile(pidFile, 'utf8').catch(() => '')).trim() || NaN) || 0, { what: 'the hook writing its pid' });
    expect(isAlive(pid)).toBe(true);
    call.unsubscribe();
    await eventually(() => !isAlive(pid), { what: `the hook's child ${pid} exiting` });
    expect(called).toBe(false);
  });

  test('PostToolUse: tool_response on stdin; exit 2 and decision block flag the result; updatedOutput', async () => {
    const cmd = await script('post', `writeFileSync('post.json', JSON.stringify(input)); console.log(JSON.stringify({ decision: 'block', reason: 'lint failed', hookSpecificOutput: { additionalContext: 'run the formatter', updatedOutput: 'rewritten' } }));`);
    const r = runners({ PostToolUse: [{ matcher: 'Edit|Write', hooks: [command(cmd), command('echo also bad >&2; exit 2')] }] });
    const result = await r.postToolUse({
      toolName: 'Edit',
      toolInput: { file_path: 'a' },
      toolUseId: 'toolu_9',
      output: 'Edited a',
      result: { type: 'tool_result', tool_use_id: 'toolu_9', content: 'Edited a' } as ToolResultBlock,
    });
    expect(result).toEqual({ block: 'lint failed\nalso bad', updatedOutput: 'rewritten', additionalContext: 'run the formatter' });
    const seen = JSON.parse(await readFile(join(dir, 'post.json'), 'utf8'));
    expect(seen).toMatchObject({ hook_event_name: 'PostToolUse', tool_name: 'Edit', tool_response: 'Edited a', is_error: false, tool_use_id: 'toolu_9' });
  });
});

describe('loop-level runners', () => {
  test('Stop: exit 2 blocks with the reason; the input carries stop_hook_active and the last message', async () => {
    const cmd = await script('stop', `writeFileSync('stop.json', JSON.stringify(input)); if (!input.stop_hook_active) { process.stderr.write('run the tests first'); process.exit(2); }`);
    const r = runners({ Stop: [{ hooks: [command(cmd)] }] });
    expect(await r.runStopHooks(stopInput(false))).toEqual({ block: 'run the tests first', warnings: [] });
    expect(JSON.parse(await readFile(join(dir, 'stop.json'), 'utf8'))).toMatchObject({
      hook_event_name: 'Stop',
      stop_hook_active: false,
      last_assistant_message: 'All done.',
    });
    expect(await r.runStopHooks(stopInput(true))).toEqual({ warnings: [] });
  });

  test('Stop: continue false prevents continuation; failures are warnings; no hooks → go on', async () => {
    const r = runners({ Stop: [{ hooks: [command(`echo '{"continue":false,"stopReason":"quota"}'`), command('exit 7')] }] });
    expect(await r.runStopHooks(stopInput())).toEqual({ preventContinuation: 'quota', warnings: ['Stop hook "exit 7" failed with exit code 7'] });
    expect(await runners({}).runStopHooks(stopInput())).toEqual({ warnings: [] });
  });

  test('PostToolBatch gets every call with its result and may block', async () => {
    const cmd = await script('batch', `writeFileSync('batch.json', JSON.stringify(input)); console.log(JSON.stringify({ decision: 'block', reason: 'audit says stop' }));`);
    const r = runners({ PostToolBatch: [{ hooks: [command(cmd)] }] });
    const result = await r.runPostToolBatchHooks({
      chainId: 'c',
      depth: 1,
      messages: [],
      signal: new AbortController().signal,
      toolUses: [{ type: 'tool_use', id: 'a', name: 'Read', input: { file_path: 'x' } }],
      results: [{ type: 'tool_result', tool_use_id: 'a', content: 'text', is_error: true } as ToolResultBlock],
    });
    expect(result).toEqual({ block: 'audit says stop', warnings: [] });
    expect(JSON.parse(await readFile(join(dir, 'batch.json'), 'utf8')).tool_calls).toEqual([
      { tool_name: 'Read', tool_input: { file_path: 'x' }, tool_use_id: 'a', tool_response: 'text', is_error: true },
    ]);
  });

  test('UserPromptSubmit: plain stdout becomes context, exit 2 rejects the prompt', async () => {
    const ok = runners({ UserPromptSubmit: [{ hooks: [command(`node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log('prompt was: '+JSON.parse(s).prompt))"`)] }] });
    const input = { chainId: 'c', depth: 0, prompt: { role: 'user' as const, content: 'fix the bug' }, signal: new AbortController().signal };
    expect(await ok.runUserPromptSubmitHooks(input)).toEqual({ additionalContext: 'prompt was: fix the bug', warnings: [] });
    const reject = runners({ UserPromptSubmit: [{ hooks: [command('echo no secrets in prompts >&2; exit 2')] }] });
    expect(await reject.runUserPromptSubmitHooks(input)).toEqual({ block: 'no secrets in prompts', warnings: [] });
  });

  test('abort stops a running Stop hook', async () => {
    const controller = new AbortController();
    const started = join(dir, 'started');
    const r = runners({ Stop: [{ hooks: [command(`touch ${started}; sleep 30`)] }] }, { killGraceMs: 100 });
    const pending = r.runStopHooks({ ...stopInput(), signal: controller.signal });
    // Abort once the hook is running (it said so), not after a guess of how long starting takes.
    await eventually(() => existsSync(started), { what: 'the Stop hook starting' });
    controller.abort();
    const result = await pending;
    expect(result.warnings[0]).toMatch(/could not run: cancelled/);
  });
});

describe('in-process callback hooks', () => {
  test('same semantics as commands: block, permission decision, rewrite; throwing is a warning', async () => {
    const seen: HookInput[] = [];
    const blocker: HookCallback = (input) => {
      seen.push(input);
      return { decision: 'block', reason: 'callback says no' };
    };
    const r = runners({ PreToolUse: [{ matcher: 'Write', hooks: [{ type: 'callback', callback: blocker }] }] });
    expect(await pre(r, 'Write', { file_path: 'a', content: '' })).toEqual({ decision: 'deny', reason: 'callback says no' });
    expect(seen[0]).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'Write' });

    const warnings: string[] = [];
    const mixed = runners(
      {
        PreToolUse: [
          {
            hooks: [
              { type: 'callback', callback: async () => ({ hookSpecificOutput: { permissionDecision: 'ask', updatedInput: { command: 'pwd' } } }) },
              { type: 'callback', name: 'thrower', callback: () => { throw new Error('boom'); } },
            ],
          },
        ],
      },
      { onWarning: (w) => warnings.push(w) },
    );
    expect(await pre(mixed)).toEqual({ decision: 'ask', updatedInput: { command: 'pwd' } });
    expect(warnings).toEqual(['PreToolUse hook thrower failed: boom']);
  });

  test('a callback is not started once the signal has aborted (a listener added then would never fire)', async () => {
    let calls = 0;
    const r = runners({ Stop: [{ hooks: [{ type: 'callback', name: 'late', callback: () => (calls++, { decision: 'block', reason: 'no' }) }] }] });
    const controller = new AbortController();
    controller.abort();
    const result = await r.runStopHooks({ ...stopInput(), signal: controller.signal });
    expect(result).toEqual({ warnings: ['Stop hook late was cancelled; its result was ignored.'] });
    expect(calls).toBe(0);
  });

  test('a Stop callback blocks, and a slow callback times out', async () => {
    const r = runners({
      Stop: [
        { hooks: [{ type: 'callback', callback: (input) => (input.hook_event_name === 'Stop' && !input.stop_hook_active ? { decision: 'block', reason: 'keep going' } : {}) }] },
        { hooks: [{ type: 'callback', name: 'slow', timeout: 0.05, callback: () => new Promise(() => {}) }] },
      ],
    });
    expect(await r.runStopHooks(stopInput(false))).toEqual({ block: 'keep going', warnings: ['Stop hook slow timed out; its result was ignored.'] });
  });
});

describe('settings-file hooks end to end', () => {
  test('hooks from a workspace settings file run', async () => {
    const { loadSettings } = await import('../../src/hooks/settings.js');
    await mkdir(join(dir, '.rxagent'));
    await writeFile(
      join(dir, '.rxagent', 'settings.json'),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo blocked by settings >&2; exit 2' }] }] } }),
    );
    const settings = await loadSettings({ cwd: dir, homeDir: join(dir, 'nohome') });
    const r = runners(settings.hooks);
    expect(await pre(r)).toEqual({ decision: 'deny', reason: 'blocked by settings' });
  });
});
