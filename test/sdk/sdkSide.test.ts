/**
 * Options the SDK itself acts on before or around the engine, through the real SDK:
 * `executableArgs` (to the runtime that runs rxagent's entry), `extraArgs` (more flags: here
 * `--replay-user-messages`), `spawnClaudeCodeProcess` (the program starts the engine itself),
 * `stderr` (the engine's warnings), `debugFile`, and `sandbox` (which the SDK folds into the
 * flag settings layer, where rxagent reads its `sandbox` keys); and `permissionPromptToolName`,
 * which rxagent does not call, saying so.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { makeSandbox } from '../cli/helpers.js';
import { assertBuilt, removeSandboxes, resultOf, runQuery } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const answer = (text: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }] });

test('executableArgs, extraArgs and spawnClaudeCodeProcess start the engine as the program asks', async () => {
  const spawned: string[][] = [];
  const { messages } = await runQuery([answer('spawned')], 'hello', {
    executableArgs: ['--no-warnings'],
    extraArgs: { 'replay-user-messages': null },
    spawnClaudeCodeProcess: (o) => {
      spawned.push([o.command, ...o.args]);
      return spawn(o.command, o.args, { cwd: o.cwd, env: o.env, signal: o.signal, stdio: ['pipe', 'pipe', 'pipe'] });
    },
  });
  expect(resultOf(messages)[0]).toMatchObject({ subtype: 'success', result: 'spawned' });
  expect(spawned).toHaveLength(1);
  expect(spawned[0]).toEqual(expect.arrayContaining(['--no-warnings', '--replay-user-messages', '--input-format', 'stream-json']));
  // --replay-user-messages: the prompt comes back as a replayed user line.
  expect(messages.some((m) => m.type === 'user' && 'isReplay' in m && m.isReplay === true)).toBe(true);
}, 60_000);

test('stderr gets the engine warnings; debugFile gets the debug log; sandbox reaches the settings', async () => {
  const sandbox = makeSandbox();
  const debugFile = join(sandbox.home, 'debug.log');
  const { messages, stderr } = await runQuery([answer('logged')], 'hello', { debugFile, sandbox: { enabled: false }, extraArgs: { 'plugin-dir': 'plugins' } }, { sandbox });
  expect(resultOf(messages)[0]).toMatchObject({ subtype: 'success', result: 'logged' });
  // An ignored flag is named in a warning on stderr, which the SDK hands to the stderr callback.
  expect(stderr).toContain('--plugin-dir');
  expect(existsSync(debugFile)).toBe(true);
  expect(readFileSync(debugFile, 'utf8')).toContain('rxagent');
  const init = messages.find((m) => m.type === 'system' && m.subtype === 'init') as unknown as { sandbox?: { enabled: boolean } };
  expect(init.sandbox).toMatchObject({ enabled: false });
}, 60_000);

test('permissionPromptToolName (an MCP tool) is not called: one warning says so, and the call that would ask is refused', async () => {
  const { messages, stderr, cwd } = await runQuery(
    [{ kind: 'message', blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: 'made.txt', content: 'x' } }] }, answer('refused')],
    'write',
    { permissionPromptToolName: 'mcp__approver__approve' },
  );
  expect(resultOf(messages)[0]).toMatchObject({ subtype: 'success', result: 'refused' });
  expect(stderr).toContain('--permission-prompt-tool mcp__approver__approve: rxagent asks only the SDK host');
  expect(existsSync(join(cwd, 'made.txt'))).toBe(false);
}, 60_000);
