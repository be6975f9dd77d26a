/**
 * Controlled stops through the built command with hooks from `--settings` (SPEC §5, §12, §13):
 * a Stop hook that always blocks ends after 9 hook calls `completed` (exit 0, like the reference);
 * a hook that stops continuation ends `hook_stopped` / `stop_hook_prevented`, which the reference
 * counts as controlled (not an error): result subtype `success`, exit 0.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { assertBuilt, makeSandbox, parseLines, removeSandboxes, runAgainst } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const text = (t: string): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'text', text: t }] });

/** A hook script that logs each input (one JSON line) and then does `behaviour`. */
function hookBox(event: 'Stop' | 'PreToolUse', behaviour: string) {
  const box = makeSandbox();
  const log = join(box.cwd, 'hook-calls.jsonl');
  const hook = join(box.cwd, 'hook.mjs');
  writeFileSync(
    hook,
    [
      "import { appendFileSync } from 'node:fs';",
      "let input = '';",
      "process.stdin.on('data', (d) => (input += d));",
      'process.stdin.on(\'end\', () => {',
      `  appendFileSync(${JSON.stringify(log)}, JSON.stringify(JSON.parse(input)) + '\\n');`,
      `  ${behaviour}`,
      '});',
    ].join('\n'),
  );
  writeFileSync(join(box.cwd, 'settings.json'), JSON.stringify({ hooks: { [event]: [{ hooks: [{ type: 'command', command: `node ${hook}` }] }] } }));
  const calls = () =>
    readFileSync(log, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return { box, calls };
}

describe.concurrent('controlled stops through the command', () => {
  test('a Stop hook that always blocks: 9 hook calls, completed, exit 0, a warning', async () => {
    const { box, calls } = hookBox('Stop', "process.stderr.write('not done yet'); process.exit(2);");
    const replies = Array.from({ length: 12 }, (_, i) => text(`answer ${i + 1}`));
    const run = await runAgainst(replies, ['-p', 'finish it', '--settings', 'settings.json', '--output-format', 'stream-json'], box);
    expect(run.code).toBe(0);
    const hookCalls = calls();
    expect(hookCalls).toHaveLength(9);
    expect(hookCalls[0]!['stop_hook_active']).toBe(false);
    expect(hookCalls.slice(1).every((c) => c['stop_hook_active'] === true)).toBe(true);
    // The first answer, then one request per blocked stop until the cap lets the turn end.
    expect(run.server.requests).toHaveLength(9);
    expect(JSON.stringify(run.server.requests[1]!.body!.messages)).toContain('not done yet');
    const lines = parseLines(run.stdout);
    expect(lines.some((l) => l.type === 'system' && l.subtype === 'warning')).toBe(true);
    expect(lines[lines.length - 1]).toMatchObject({ type: 'result', subtype: 'success', is_error: false, terminal_reason: 'completed', result: 'answer 9' });
  });

  test('a Stop hook with continue:false: stop_hook_prevented, success, exit 0', async () => {
    const { box, calls } = hookBox('Stop', "process.stdout.write(JSON.stringify({ continue: false, stopReason: 'enough for today' }));");
    const run = await runAgainst([text('here it is'), text('unused')], ['-p', 'go', '--settings', 'settings.json', '--output-format', 'json'], box);
    expect(run.code).toBe(0);
    expect(calls()).toHaveLength(1);
    expect(run.server.requests).toHaveLength(1);
    expect(parseLines(run.stdout)[0]).toMatchObject({ subtype: 'success', is_error: false, terminal_reason: 'stop_hook_prevented' });
  });

  test('a PreToolUse hook with continue:false: hook_stopped after the batch, success, exit 0, no second request', async () => {
    const { box, calls } = hookBox('PreToolUse', "process.stdout.write(JSON.stringify({ continue: false, stopReason: 'stop here' }));");
    const script: ScriptedResponse[] = [
      { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_g', name: 'Glob', input: { pattern: '*.json' } }] },
      text('unused'),
    ];
    const run = await runAgainst(script, ['-p', 'go', '--settings', 'settings.json', '--output-format', 'json'], box);
    expect(run.code).toBe(0);
    expect(calls()).toHaveLength(1);
    expect(run.server.requests).toHaveLength(1);
    expect(parseLines(run.stdout)[0]).toMatchObject({ subtype: 'success', is_error: false, terminal_reason: 'hook_stopped' });
  });
});
