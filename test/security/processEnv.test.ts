/**
 * Commands the model runs (Bash) and hook commands never see rxagent's API key, and hooks stay
 * bounded: a timeout ends the whole process group, huge output is capped, bad JSON is a warning.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { eventually } from '../eventually.js';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { runHook } from '../../src/hooks/runHook.js';
import type { HookInput } from '../../src/hooks/types.js';
import { bashTool } from '../../src/tools/builtin/bash.js';
import { childEnvironment } from '../../src/tools/builtin/processGroup.js';
import { createWorkspace } from '../../src/tools/builtin/workspace.js';
import { isAlive, makeTempDir, runTool } from '../builtin/helpers.js';

const KEY = 'sk-ant-sec-test-0123456789abcdef';
let dir: string;
let cleanup: () => Promise<void>;
const saved = { key: process.env['ANTHROPIC_API_KEY'], token: process.env['ANTHROPIC_AUTH_TOKEN'] };

beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir('rxagent-sec-env-'));
  process.env['ANTHROPIC_API_KEY'] = KEY;
  process.env['ANTHROPIC_AUTH_TOKEN'] = `${KEY}-token`;
  process.env['RXAGENT_SEC_KEEP'] = 'kept';
});
afterAll(async () => {
  for (const [name, value] of [['ANTHROPIC_API_KEY', saved.key], ['ANTHROPIC_AUTH_TOKEN', saved.token]] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  delete process.env['RXAGENT_SEC_KEEP'];
  await cleanup();
});

const input = (): HookInput => ({
  session_id: 's',
  transcript_path: undefined,
  cwd: dir,
  hook_event_name: 'PreToolUse',
  tool_name: 'Bash',
  tool_input: { command: 'ls' },
  tool_use_id: 'toolu_1',
});

describe('the API key stays out of child processes', () => {
  test('childEnvironment drops only our credentials', () => {
    const env = childEnvironment();
    expect(env['ANTHROPIC_API_KEY']).toBeUndefined();
    expect(env['ANTHROPIC_AUTH_TOKEN']).toBeUndefined();
    expect(env['RXAGENT_SEC_KEEP']).toBe('kept');
    expect(env['PATH']).toBe(process.env['PATH']);
  });

  test('Bash: env, printenv and /proc/self/environ show no key', async () => {
    const bash = bashTool(createWorkspace({ cwd: dir }));
    const out = await runTool(bash, { command: 'env; printenv ANTHROPIC_API_KEY; tr "\\0" "\\n" < /proc/self/environ; echo "[$ANTHROPIC_API_KEY]"' });
    expect(out).toContain('RXAGENT_SEC_KEEP=kept');
    expect(out).toContain('[]');
    expect(out).not.toContain(KEY);
  });

  test('hook commands: neither the environment nor the stdin payload carries the key', async () => {
    const dump = join(dir, 'hook-dump.txt');
    const outcome = await runHook({ type: 'command', command: `{ env; cat; } > ${dump}` }, input(), { cwd: dir });
    expect(outcome.warnings).toEqual([]);
    const seen = await readFile(dump, 'utf8');
    expect(seen).toContain('"hook_event_name":"PreToolUse"');
    expect(seen).toContain('RXAGENT_SEC_KEEP=kept');
    expect(seen).not.toContain(KEY);
  });
});

describe('hooks stay bounded', () => {
  test('a hanging hook with a background child is killed with its group at the timeout', async () => {
    const pidFile = join(dir, 'hook-pid');
    // A 2 s timeout leaves a loaded machine time to start the shell and write the pid first. The
    // sleeps outlast vitest's hang bound, so a timeout that did nothing fails by hanging.
    const outcome = await runHook({ type: 'command', command: `sleep 300 & echo $! > ${pidFile}; sleep 300`, timeout: 2 }, input(), { cwd: dir, killGraceMs: 100 });
    expect(outcome.warnings.join('\n')).toMatch(/timed out|time/i);
    const pid = Number(await readFile(pidFile, 'utf8'));
    await eventually(() => !isAlive(pid), { what: `the hook's child ${pid} exiting` });
  });

  test('a hook printing 30 MB is capped, not buffered whole', async () => {
    const outcome = await runHook({ type: 'command', command: 'head -c 30000000 /dev/zero | tr "\\0" x; exit 2' }, input(), { cwd: dir });
    expect((outcome.block ?? '').length).toBeLessThan(1000); // stdout is not the block reason; stderr was empty
    const loud = await runHook({ type: 'command', command: 'head -c 30000000 /dev/zero | tr "\\0" y >&2; exit 2' }, input(), { cwd: dir });
    expect(loud.block).toBeDefined();
    expect(loud.block!.length).toBeLessThanOrEqual(1_100_000);
  });

  test('malformed, non-object and absurdly nested JSON are warnings, not crashes', async () => {
    for (const printed of ['{"decision": "block", oops', `{"decision":"block","a":${'['.repeat(100_000)}${']'.repeat(100_000)}}`]) {
      const file = join(dir, 'out.json');
      await writeFile(file, printed);
      const outcome = await runHook({ type: 'command', command: `cat ${file}` }, input(), { cwd: dir });
      expect(outcome.block).toBeUndefined();
      expect(outcome.permissionDecision).toBeUndefined();
      expect(outcome.warnings.length, printed.slice(0, 40)).toBeGreaterThan(0);
    }
    const file = join(dir, 'odd.json');
    await writeFile(file, '{"hookSpecificOutput": 5, "decision": 7}');
    const odd = await runHook({ type: 'command', command: `cat ${file}` }, input(), { cwd: dir });
    expect(odd.block).toBeUndefined();
    expect(odd.permissionDecision).toBeUndefined();
  });
});
