/**
 * Ends that cut a tool call off, through the built command and a real long Bash call (the
 * sandbox on, as by default): a SIGINT to a `-p` run; and `--timeout` in stream-json input mode
 * (each turn's own deadline), which ends a turn through the same interrupt. Every tool_use still gets exactly one tool_result, in the
 * printed lines and in the transcript, and a final `result` line says how the turn ended.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { workspaceSlug } from '../../src/session/paths.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { assertBuilt, makeSandbox, parseLines, removeSandboxes, startCli } from './helpers.js';
import { isResult, startStreamHost, userLine } from './streamHost.js';
import { fileCreated } from '../fileCreated.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const CALL_ID = 'toolu_scripted_0_0';
const longBash = { kind: 'message' as const, blocks: [{ type: 'tool_use' as const, name: 'Bash', input: { command: 'touch running; sleep 60' } }] };
const answer = (text: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }] });
const INTERRUPTED_BASH = { stdout: '', stderr: '', interrupted: true, isImage: false, noOutputExpected: false };

/** The tool_result blocks of the transcript's records, by tool_use_id. */
function transcriptResults(home: string, cwd: string, sessionId: string): Array<{ tool_use_id: string; is_error?: boolean }> {
  const file = join(home, '.rxagent', 'projects', workspaceSlug(cwd), `${sessionId}.jsonl`);
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .flatMap((l) => {
      const content = (JSON.parse(l) as { message?: { content?: unknown } }).message?.content;
      return Array.isArray(content) ? (content as Array<{ type: string; tool_use_id: string; is_error?: boolean }>).filter((b) => b.type === 'tool_result') : [];
    });
}

test('SIGINT to a -p run while Bash runs: one interrupted result for the call (printed and in the transcript), then an error result, exit 1', async () => {
  const box = makeSandbox();
  const server = await startScriptedServer({ script: [longBash, answer('never asked for')] });
  try {
    const cli = startCli(['-p', 'run it', '--output-format', 'stream-json', '--verbose', '--dangerously-skip-permissions'], { ...box, baseURL: server.baseURL });
    await fileCreated(box.cwd, 'running');
    cli.child.kill('SIGINT');
    const { code, stdout } = await cli.done;
    expect(code).toBe(1);
    const lines = parseLines(stdout);
    const init = lines[0];
    expect(init).toMatchObject({ type: 'system', subtype: 'init', sandbox: { enabled: true } });
    const results = lines.filter((l) => l.type === 'user' && Array.isArray(l.message.content) && l.message.content.some((b) => b.type === 'tool_result'));
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ message: { content: [{ type: 'tool_result', tool_use_id: CALL_ID, is_error: true }] }, tool_use_result: INTERRUPTED_BASH });
    expect(lines.at(-1)).toMatchObject({ type: 'result', subtype: 'error_during_execution', is_error: true, terminal_reason: 'aborted_tools', errors: ['Interrupted.'] });
    expect(server.requests).toHaveLength(1);
    expect(transcriptResults(box.home, box.cwd, init!.session_id)).toEqual([expect.objectContaining({ tool_use_id: CALL_ID, is_error: true })]);
  } finally {
    await server.close();
  }
}, 60_000);

test('--timeout in stream-json input mode bounds each turn: the turn ends as an interrupt with one result, the next message gets a deadline of its own', async () => {
  const box = makeSandbox();
  // The first answer never ends, so the deadline passes during it however slow the machine is
  // (a Bash call as the thing cut off would race the timer: on a loaded machine the deadline could
  // pass before the call started). That an interrupt gives a running tool its stopped result is
  // the SIGINT test's above: the deadline ends the turn through the same interrupt.
  const never = new Promise<void>(() => undefined);
  const server = await startScriptedServer({ script: [{ kind: 'message', endAfter: never, blocks: [{ type: 'text', text: 'thinking forever' }] }, answer('second answer')] });
  try {
    const host = startStreamHost(['--dangerously-skip-permissions', '--timeout', '10'], { ...box, baseURL: server.baseURL });
    host.send(userLine('take your time'));
    const first = await host.waitFor(isResult, 'the first result');
    expect(first).toMatchObject({ subtype: 'error_during_execution', is_error: true, terminal_reason: 'aborted_streaming' });
    const warning = host.lines.find((l) => l.type === 'system' && l['subtype'] === 'warning');
    expect(warning?.['message']).toBe('the turn passed its deadline of 10 s (--timeout) and was interrupted');
    // The deadline is the turn's: the next message gets a whole one of its own (10 s for an
    // answer the server sends at once: a generous bound, not a window).
    host.send(userLine('and now?'));
    expect(await host.waitFor(isResult, 'the second result')).toMatchObject({ subtype: 'success', result: 'second answer' });
    host.end();
    const { code, stderr } = await host.done;
    expect(code).toBe(0);
    expect(stderr).toContain('--timeout');
    expect(server.requests).toHaveLength(2);
  } finally {
    await server.close();
  }
}, 60_000);
