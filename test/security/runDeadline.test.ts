/**
 * A run ends (issue 15, "Runs end"): `--timeout <seconds>` is the whole `-p` run's deadline,
 * whatever holds it up (a model that never finishes its response, a tool that never ends), and
 * the tool's processes die with it; stderr says the deadline ended it. Interactively it is off by
 * default and, when given, bounds each turn (ended as Esc would, the session goes on).
 * Each test waits for rxagent's exit (real I/O); the deadline is the only clock.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { assertBuilt, makeSandbox, parseLines, removeSandboxes, runAgainst, startCli } from '../cli/helpers.js';
import { eventually } from '../eventually.js';
import { survivorsOf } from './processes.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

/** The command run once against a scripted model: its exit, output, and how many requests it made. */
async function runCli(script: readonly ScriptedResponse[], args: readonly string[]) {
  const run = await runAgainst([...script], args, makeSandbox());
  return { ...run, requests: run.server.requests.length };
}

const never = new Promise<void>(() => undefined);

describe('-p --timeout: the run ends at its deadline', () => {
  test('a response that never ends: the run stops, one error result, stderr names the deadline', async () => {
    const script: ScriptedResponse[] = [{ kind: 'message', endAfter: never, blocks: [{ type: 'text', text: 'thinking forever' }] }];
    const run = await runCli(script, ['-p', 'go', '--timeout', '1', '--output-format', 'stream-json', '--verbose']);
    expect(run.code).toBe(1);
    const results = parseLines(run.stdout).filter((l) => l.type === 'result');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ is_error: true });
    expect(run.stderr).toContain('rxagent: the run passed its deadline of 1 s (--timeout sets it)');
  }, 120_000);

  test('a tool call that never ends: the run stops, the call gets its one result, its processes die', async () => {
    const token = `4242.${process.pid}7`;
    const script: ScriptedResponse[] = [
      { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_sleep', name: 'Bash', input: { command: `sleep ${token}` } }] },
      { kind: 'message', blocks: [{ type: 'text', text: 'never asked for' }] },
    ];
    const run = await runCli(script, ['-p', 'go', '--timeout', '2', '--permission-mode', 'bypassPermissions', '--output-format', 'stream-json', '--verbose']);
    expect(run.code).toBe(1);
    const lines = parseLines(run.stdout);
    const toolResults = lines.flatMap((l) =>
      l.type === 'user' && Array.isArray(l.message.content) ? l.message.content.filter((b) => b.type === 'tool_result') : [],
    );
    expect(toolResults).toHaveLength(1);
    expect(lines.filter((l) => l.type === 'result')).toHaveLength(1);
    expect(run.requests).toBe(1); // the deadline ended the run: the second response was never asked for
    expect(run.stderr).toContain('the run passed its deadline of 2 s');
    expect(await survivorsOf(token)).toEqual([]);
  }, 120_000);

  test('a run that ends in time says nothing about a deadline', async () => {
    const run = await runCli([{ kind: 'message', blocks: [{ type: 'text', text: 'quick' }] }], ['-p', 'go', '--timeout', '600']);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('quick\n');
    expect(run.stderr).toBe('');
  }, 120_000);

  test.each(['0', '-1', 'soon', ''])('--timeout %j is a usage error', async (value) => {
    const run = await runCli([], ['-p', 'go', '--timeout', value]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/^rxagent: .*--timeout/); // '-1' is refused by the option parser, the rest by ours
    expect(run.requests).toBe(0);
  }, 120_000);
});

describe('interactive --timeout: each turn gets the deadline', () => {
  test('a turn held by the model is interrupted at the deadline, and the next turn runs', async () => {
    const script: ScriptedResponse[] = [
      { kind: 'message', endAfter: never, blocks: [{ type: 'text', text: 'thinking forever' }] },
      { kind: 'message', blocks: [{ type: 'text', text: 'Second turn answered.' }] },
    ];
    const server = await startScriptedServer({ script });
    const box = makeSandbox();
    try {
      const cli = startCli(['--timeout', '1'], { ...box, baseURL: server.baseURL, openStdin: true });
      cli.child.stdin.write('first\n');
      await eventually(() => cli.stdout().includes('(the turn passed --timeout 1 s; Ctrl-C again to exit)'), { what: 'the deadline notice', timeoutMs: 60_000 });
      cli.child.stdin.end('second\n');
      const { code, stdout } = await cli.done;
      expect(code).toBe(0);
      expect(stdout).toContain('Second turn answered.');
      expect(server.requests).toHaveLength(2);
    } finally {
      await server.close();
    }
  }, 120_000);
});
