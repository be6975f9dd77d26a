/**
 * SPEC §13, bullet by bullet, the way an outside checker probes it: the BUILT `rxagent -p ...`
 * command (stream-json, --verbose) against the scripted model server, asserting only what can be
 * observed from outside: how many requests arrived and what each one carried, the stdout lines
 * (with the time each arrived), the exit status and the result line. Every run is a separate
 * process; the tests run concurrently so the file stays within a few seconds of its slowest case
 * (the retry-after waits).
 */
import { execFileSync, spawn } from 'node:child_process';
import { closeSync, constants, existsSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { MessageParam } from '../../src/protocol/content.js';
import type { Script, ScriptedResponse } from '../../src/testing/script.js';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import { gate } from '../../src/testing/gate.js';
import type { OutputLine } from '../../src/cli/outputSchemas.js';
import { assertBuilt, CLI, makeSandbox, parseLines, removeSandboxes } from './helpers.js';
import { withoutCacheMarks } from '../loop/helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

interface TimedRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly lines: OutputLine[];
  /** When each stdout line arrived (ms since epoch, same clock as the server's `receivedAt`). */
  readonly lineTimes: number[];
  readonly server: ScriptedServer;
}

/** Runs `rxagent -p <prompt> --output-format stream-json --verbose ...extra` against `script`. */
async function probe(
  script: Script,
  prompt: string,
  extra: readonly string[],
  box: { cwd: string; home: string },
  env: Readonly<Record<string, string>> = {},
  /** Sees the whole stdout so far after each chunk (to open a script's gates on what was printed). */
  watch?: (stdout: string) => void,
  /** The test's own signal: when vitest gives up on a hang, the child is killed with it. */
  signal?: AbortSignal,
): Promise<TimedRun> {
  const server = await startScriptedServer({ script });
  try {
    const child = spawn(process.execPath, [CLI, '-p', prompt, '--output-format', 'stream-json', '--verbose', ...extra], {
      cwd: box.cwd,
      env: { PATH: process.env['PATH'] ?? '', HOME: box.home, ANTHROPIC_API_KEY: 'sk-spec13', ANTHROPIC_BASE_URL: server.baseURL, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(signal === undefined ? {} : { signal }),
    });
    let stdout = '';
    let stderr = '';
    const lineTimes: number[] = [];
    child.stdout.on('data', (d: Buffer) => {
      const now = Date.now();
      const text = d.toString();
      stdout += text;
      for (const ch of text) if (ch === '\n') lineTimes.push(now);
      watch?.(stdout);
    });
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', resolve);
    });
    return { code, stdout, stderr, lines: parseLines(stdout), lineTimes, server };
  } finally {
    await server.close();
  }
}

/**
 * Once `ready()` holds and every FIFO in `names` has a reader at the same time (opening a FIFO
 * for writing without blocking fails with ENXIO while nobody reads it), writes a line to each and
 * closes them; resolves true. No deadline of its own (a window would be a race on a loaded
 * machine): it gives up only when the test's `signal` aborts, closing what it opened, and
 * resolves false.
 */
async function releaseWhenBothRead(dir: string, names: readonly string[], ready: () => boolean, signal: AbortSignal): Promise<boolean> {
  const fds = new Map<string, number>();
  try {
    while (!signal.aborted) {
      if (ready()) {
        for (const name of names) {
          if (fds.has(name)) continue;
          try {
            fds.set(name, openSync(join(dir, name), constants.O_WRONLY | constants.O_NONBLOCK));
          } catch (error) {
            if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw error;
          }
        }
        if (fds.size === names.length) {
          for (const [name, fd] of fds) writeSync(fd, `from ${name}\n`);
          return true;
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return false;
  } finally {
    for (const fd of fds.values()) closeSync(fd);
  }
}

const text = (t: string, more: Partial<Extract<ScriptedResponse, { kind: 'message' }>> = {}): ScriptedResponse => ({
  kind: 'message',
  blocks: [{ type: 'text', text: t }],
  ...more,
});
const tools = (...blocks: { id: string; name: string; input?: Record<string, unknown>; rawInput?: string }[]): ScriptedResponse => ({
  kind: 'message',
  blocks: blocks.map((b) => ({ type: 'tool_use' as const, ...b })),
});

function only<T extends OutputLine['type']>(lines: readonly OutputLine[], type: T): Extract<OutputLine, { type: T }>[] {
  return lines.filter((l): l is Extract<OutputLine, { type: T }> => l.type === type);
}
function system(lines: readonly OutputLine[], subtype: string): OutputLine[] {
  return lines.filter((l) => l.type === 'system' && l.subtype === subtype);
}
/** The protocol frame every run must keep: init first, exactly one result, last. */
function resultOf(run: TimedRun) {
  expect(run.lines[0]).toMatchObject({ type: 'system', subtype: 'init' });
  const results = only(run.lines, 'result');
  expect(results).toHaveLength(1);
  expect(run.lines[run.lines.length - 1]).toBe(results[0]);
  return results[0]!;
}

function messagesOf(run: TimedRun, i: number): MessageParam[] {
  const request = run.server.requests[i];
  expect(request?.validationErrors).toEqual([]);
  return request!.body!.messages as MessageParam[];
}
function toolResults(run: TimedRun): { tool_use_id: string; is_error?: boolean; text: string }[] {
  return only(run.lines, 'user').flatMap((l) =>
    typeof l.message.content === 'string'
      ? []
      : l.message.content.flatMap((b) =>
          b.type === 'tool_result' ? [{ tool_use_id: b.tool_use_id, ...(b.is_error ? { is_error: true } : {}), text: JSON.stringify(b.content) }] : [],
        ),
  );
}
const blockTexts = (m: MessageParam | undefined): string[] =>
  m === undefined ? [] : typeof m.content === 'string' ? [m.content] : m.content.flatMap((b) => (b.type === 'text' ? [b.text] : []));

describe.concurrent('SPEC §13 through the built command', () => {
  test('tool start: a safe tool runs when its block closes, its result line out long before the response ends', async ({ signal }) => {
    const box = makeSandbox({ 'early.txt': 'EARLY\n' });
    // The block after the tool call is held until the call's result line is out, and nothing
    // else opens it: no timer can open it early on a loaded machine. A CLI that waits for the
    // response's end before running the tool therefore never finishes; vitest's hang bound
    // fails the test and its signal kills the child.
    const resultPrinted = gate();
    const run = await probe(
      [
        {
          kind: 'message',
          blocks: [
            { type: 'tool_use', id: 'toolu_early', name: 'Read', input: { file_path: 'early.txt' } },
            { type: 'text', text: 'still talking', startAfter: resultPrinted.promise },
          ],
        },
        text('done'),
      ],
      'read early',
      [],
      box,
      {},
      // The user line with the result, not any line naming the call (progress lines do too).
      (stdout) => void (stdout.split('\n').some((l) => l.includes('"type":"user"') && l.includes('"tool_use_id":"toolu_early"')) && resultPrinted.open()),
      signal,
    );
    expect(run.code).toBe(0);
    const user = only(run.lines, 'user')[0]!;
    expect(JSON.stringify(user.message.content)).toContain('EARLY');
    const resultAt = run.lineTimes[run.lines.indexOf(user)]!;
    expect(resultAt).toBeLessThanOrEqual(run.server.requests[0]!.endedAt!);
    // Printed before the text block that followed it in the same response.
    const later = only(run.lines, 'assistant').find((l) => l.message.content[0]?.type === 'text')!;
    expect(run.lines.indexOf(user)).toBeLessThan(run.lines.indexOf(later));
  });

  test('--max-turns 1 with a tool call: one request, the tool ran, error_max_turns, is_error, exit 1', async () => {
    const box = makeSandbox({ 'notes.txt': 'MAXTURNS_FIXTURE\n' });
    const run = await probe([tools({ id: 'toolu_r', name: 'Read', input: { file_path: 'notes.txt' } }), text('never asked')], 'read it', ['--max-turns', '1'], box);
    expect(run.code).toBe(1);
    expect(run.server.requests).toHaveLength(1);
    expect(toolResults(run)).toEqual([expect.objectContaining({ tool_use_id: 'toolu_r', text: expect.stringContaining('MAXTURNS_FIXTURE') })]);
    expect(resultOf(run)).toMatchObject({ subtype: 'error_max_turns', is_error: true, terminal_reason: 'max_turns', num_turns: 1 });
  });

  test('max_tokens: 3 recovery requests (4 in all) keeping the truncated text plus a hidden continuation; then an error result, exit 1', async () => {
    const box = makeSandbox();
    const cut = (n: number) => text(`truncated part ${n}`, { stopReason: 'max_tokens' });
    const run = await probe([cut(1), cut(2), cut(3), cut(4), text('never asked')], 'write a long essay', [], box);
    expect(run.server.requests).toHaveLength(4);
    for (let i = 1; i < 4; i++) {
      const messages = messagesOf(run, i);
      const [assistant, continuation] = messages.slice(-2);
      expect(assistant?.role).toBe('assistant');
      expect(blockTexts(assistant).join('')).toContain(`truncated part ${i}`);
      expect(continuation?.role).toBe('user');
      expect(blockTexts(continuation).join('').length).toBeGreaterThan(0);
      // Each recovery request extends the previous one: nothing truncated is dropped.
      expect(messages).toHaveLength(1 + 2 * i);
    }
    // Hidden: the continuation messages are never printed as user lines.
    expect(only(run.lines, 'user')).toEqual([]);
    expect(run.code).toBe(1);
    expect(resultOf(run)).toMatchObject({ is_error: true, subtype: 'error_during_execution' });
  });

  test('malformed tool use (stop_reason tool_use, no tool block): exactly 2 requests, malformed_tool_use_exhausted, exit 1', async () => {
    const box = makeSandbox();
    const malformed = text('I will call a tool now.', { stopReason: 'tool_use' });
    const run = await probe([malformed, malformed, text('never asked')], 'do it', [], box);
    expect(run.server.requests).toHaveLength(2);
    // The retry carries a correction message after the failed reply.
    const retry = messagesOf(run, 1);
    expect(retry[retry.length - 1]?.role).toBe('user');
    expect(blockTexts(retry[retry.length - 1]).join('').length).toBeGreaterThan(0);
    expect(run.code).toBe(1);
    expect(resultOf(run)).toMatchObject({ is_error: true, terminal_reason: 'malformed_tool_use_exhausted' });
  });

  test('thinking-only reply: dropped from history, a nudge added to the last user message, sent once; the second is accepted (empty answer)', async () => {
    const box = makeSandbox();
    const thinkingOnly = (n: number): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'thinking', thinking: `pondering ${n}`, signature: `sig${n}` }] });
    const run = await probe([thinkingOnly(1), thinkingOnly(2), text('never asked')], 'THINK_PROMPT', [], box);
    expect(run.server.requests).toHaveLength(2);
    const first = messagesOf(run, 0);
    const second = messagesOf(run, 1);
    expect(first).toHaveLength(1);
    // The thinking reply is not in the history; the single user message now also carries a nudge.
    expect(second).toHaveLength(1);
    expect(second[0]!.role).toBe('user');
    expect(JSON.stringify(second)).not.toContain('pondering 1');
    const texts = blockTexts(second[0]);
    expect(texts.join('')).toContain('THINK_PROMPT');
    expect(texts.length).toBeGreaterThan(blockTexts(first[0]).length);
    expect(run.code).toBe(0);
    expect(resultOf(run)).toMatchObject({ subtype: 'success', is_error: false, terminal_reason: 'completed', result: '' });
  });

  test('a Stop hook that always blocks: 9 hook calls, feedback as a user message, stop_hook_active from the second call, completed, exit 0', async () => {
    const box = makeSandbox();
    const log = join(box.cwd, 'stop-calls.jsonl');
    const hook = join(box.cwd, 'stop.mjs');
    writeFileSync(
      hook,
      `import { appendFileSync } from 'node:fs';
let input = '';
process.stdin.on('data', (d) => (input += d));
process.stdin.on('end', () => { appendFileSync(${JSON.stringify(log)}, input.trim() + '\\n'); process.stderr.write('KEEP_GOING_FEEDBACK'); process.exit(2); });
`,
    );
    writeFileSync(join(box.cwd, 'settings.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: `node ${hook}` }] }] } }));
    const replies = Array.from({ length: 12 }, (_, i) => text(`answer ${i + 1}`));
    const run = await probe(replies, 'finish it', ['--settings', 'settings.json'], box);
    const calls = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { stop_hook_active: boolean });
    expect(calls).toHaveLength(9);
    expect(calls.map((c) => c.stop_hook_active)).toEqual([false, true, true, true, true, true, true, true, true]);
    const second = messagesOf(run, 1);
    expect(second[second.length - 1]?.role).toBe('user');
    expect(JSON.stringify(second[second.length - 1])).toContain('KEEP_GOING_FEEDBACK');
    expect(run.code).toBe(0);
    expect(resultOf(run)).toMatchObject({ subtype: 'success', is_error: false, terminal_reason: 'completed' });
  });

  test('429, 500, 529 retried after about 0.5 s then 1 s then 2 s (jittered), each announced before its wait', async () => {
    const box = makeSandbox();
    const run = await probe(
      [{ kind: 'http_error', status: 429 }, { kind: 'http_error', status: 500 }, { kind: 'http_error', status: 529 }, text('finally')],
      'hi',
      [],
      box,
      { RXAGENT_MAX_RETRIES: '3' },
    );
    expect(run.code).toBe(0);
    expect(run.server.requests).toHaveLength(4);
    const retries = system(run.lines, 'api_retry') as Extract<OutputLine, { subtype: 'api_retry' }>[];
    expect(retries.map((r) => [r.attempt, r.max_retries, r.error_status])).toEqual([[1, 3, 429], [2, 3, 500], [3, 3, 529]]);
    const nominal = [500, 1000, 2000];
    retries.forEach((r, i) => {
      expect(r.retry_delay_ms).toBeGreaterThanOrEqual(nominal[i]! * 0.75 - 1);
      expect(r.retry_delay_ms).toBeLessThanOrEqual(nominal[i]!);
      const waited = run.server.requests[i + 1]!.receivedAt - run.server.requests[i]!.receivedAt;
      expect(waited).toBeGreaterThanOrEqual(r.retry_delay_ms - 20);
      // Announced before the wait: the line arrived before the next attempt was sent, well ahead of it.
      // (An order, not a margin: on a loaded machine the line and the request can be read together.)
      const announcedAt = run.lineTimes[run.lines.indexOf(r)]!;
      expect(announcedAt).toBeLessThanOrEqual(run.server.requests[i + 1]!.receivedAt);
    });
    expect(resultOf(run)).toMatchObject({ subtype: 'success', result: 'finally' });
  });

  test('retry-after 1 gives a 1 s wait, retry-after 3 a 3 s wait (the larger of backoff and header wins)', async () => {
    const box = makeSandbox();
    const run = await probe(
      [
        { kind: 'http_error', status: 429, headers: { 'retry-after': '1' } },
        { kind: 'http_error', status: 529, headers: { 'retry-after': '3' } },
        text('after waiting'),
      ],
      'hi',
      [],
      box,
    );
    expect(run.code).toBe(0);
    const retries = system(run.lines, 'api_retry') as Extract<OutputLine, { subtype: 'api_retry' }>[];
    expect(retries.map((r) => r.retry_delay_ms)).toEqual([1000, 3000]);
    // The default bound, observed end to end.
    expect(retries.every((r) => r.max_retries === 10)).toBe(true);
    const [r0, r1, r2] = run.server.requests;
    // Lower bounds are exact (a wait is never shorter); the upper ones only tell 1 s from 3 s and
    // 3 s from a sum of both, with room for a loaded machine's late timers.
    expect(r1!.receivedAt - r0!.receivedAt).toBeGreaterThanOrEqual(990);
    expect(r1!.receivedAt - r0!.receivedAt).toBeLessThan(2900);
    expect(r2!.receivedAt - r1!.receivedAt).toBeGreaterThanOrEqual(2990);
    expect(r2!.receivedAt - r1!.receivedAt).toBeLessThan(3990);
  });

  test('retries exhausted: an error result naming the status, exit 1 (and no Stop hook after an API error)', async () => {
    const box = makeSandbox();
    const log = join(box.cwd, 'stop-calls.log');
    writeFileSync(join(box.cwd, 'settings.json'), JSON.stringify({ hooks: { Stop: [{ hooks: [{ type: 'command', command: `echo called >> ${log}` }] }] } }));
    const run = await probe(
      [{ kind: 'http_error', status: 529 }, { kind: 'http_error', status: 529 }, { kind: 'http_error', status: 529 }],
      'hi',
      ['--settings', 'settings.json'],
      box,
      { RXAGENT_MAX_RETRIES: '2' },
    );
    expect(existsSync(log)).toBe(false);
    expect(run.server.requests).toHaveLength(3);
    expect(system(run.lines, 'api_retry')).toHaveLength(2);
    expect(run.code).toBe(1);
    const result = resultOf(run);
    expect(result).toMatchObject({ subtype: 'error_during_execution', is_error: true, terminal_reason: 'api_error' });
    expect([result.result ?? '', ...(result.errors ?? [])].join(' ')).toContain('529');
  });

  for (const fault of ['an SSE error event', 'a dropped connection'] as const) {
    test(`${fault} mid-stream: sent again; the partial text reaches neither the output nor the next request; a retry line announces it`, async () => {
      const box = makeSandbox();
      const broken: ScriptedResponse = {
        kind: 'message',
        blocks: [{ type: 'text', text: 'PARTIAL_DOOMED_TEXT and more', chunkSize: 4 }],
        ...(fault === 'an SSE error event'
          ? { errorAfterEvents: { events: 4, type: 'overloaded_error', message: 'Overloaded' } }
          : { cutAfterEvents: 4 }),
      };
      const run = await probe([broken, text('CLEAN_ANSWER')], 'hi', [], box);
      expect(run.code).toBe(0);
      expect(run.server.requests).toHaveLength(2);
      expect(JSON.stringify(run.server.requests[1]!.body!.messages)).not.toContain('PARTIAL');
      expect(JSON.stringify(run.server.requests[1]!.body!.messages)).toBe(JSON.stringify(run.server.requests[0]!.body!.messages));
      expect(run.stdout).not.toContain('PARTIAL');
      expect(system(run.lines, 'api_retry')).toHaveLength(1);
      expect(only(run.lines, 'assistant').map((l) => l.message.content)).toEqual([[{ type: 'text', text: 'CLEAN_ANSWER', citations: null }]]);
      expect(resultOf(run)).toMatchObject({ subtype: 'success', result: 'CLEAN_ANSWER' });
    });
  }

  test('prompt too long on the very first exchange: one request, prompt_too_long, exit 1, "too short to compact"', async () => {
    const box = makeSandbox();
    const run = await probe(
      [{ kind: 'http_error', status: 400, errorType: 'invalid_request_error', message: 'prompt is too long: 250000 tokens > 200000 maximum' }, text('never')],
      'huge prompt',
      [],
      box,
    );
    expect(run.server.requests).toHaveLength(1);
    expect(run.code).toBe(1);
    const result = resultOf(run);
    expect(result).toMatchObject({ is_error: true, terminal_reason: 'prompt_too_long' });
    expect([result.result ?? '', ...(result.errors ?? [])].join(' ')).toMatch(/too short to compact/);
  });

  test('prompt too long after three tool rounds: one summarization request, the same turn retried with the summary and recent rounds, the error never shown', async () => {
    const box = makeSandbox({ 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'c.txt': 'gamma\n' });
    const run = await probe(
      [
        tools({ id: 'toolu_1', name: 'Read', input: { file_path: 'a.txt' } }),
        tools({ id: 'toolu_2', name: 'Read', input: { file_path: 'b.txt' } }),
        tools({ id: 'toolu_3', name: 'Read', input: { file_path: 'c.txt' } }),
        { kind: 'http_error', status: 400, errorType: 'invalid_request_error', message: 'prompt is too long: 250000 tokens > 200000 maximum' },
        text('SUMMARY_OF_EARLIER_WORK'),
        text('ALL_DONE'),
      ],
      'read the three files',
      [],
      box,
    );
    expect(run.server.requests).toHaveLength(6);
    const [, , , failed, summarize, retried] = run.server.requests;
    expect(summarize!.body!.tools ?? []).toEqual([]);
    expect(JSON.stringify(summarize!.body!.messages)).toContain('alpha');
    const retriedText = JSON.stringify(retried!.body!.messages);
    expect(retriedText).toContain('SUMMARY_OF_EARLIER_WORK');
    // The most recent round is kept verbatim (tool_use and tool_result still paired); the older ones
    // are in the summary only: the server counted far more than we estimate, so little is kept.
    expect(retriedText).toContain('toolu_3');
    expect(retriedText).toContain('gamma');
    expect(retriedText).not.toContain('toolu_1');
    expect(retried!.body!.messages.length).toBeLessThan(failed!.body!.messages.length);
    expect(retried!.validationErrors).toEqual([]);
    expect(run.stdout).not.toContain('too long');
    expect(run.code).toBe(0);
    expect(resultOf(run)).toMatchObject({ subtype: 'success', is_error: false, result: 'ALL_DONE' });
  });

  test('resume: the first request after --resume carries the whole earlier conversation (tool round included), then the new prompt', async () => {
    const box = makeSandbox({ 'notes.txt': 'RESUME_FIXTURE\n' });
    const id = '5e5e5e5e-1111-4222-8333-444444444444';
    const first = await probe(
      [tools({ id: 'toolu_first', name: 'Read', input: { file_path: 'notes.txt' } }), text('FIRST_FINAL')],
      'FIRST_PROMPT',
      ['--session-id', id],
      box,
    );
    expect(first.code).toBe(0);
    const earlier = messagesOf(first, 1);
    const run = await probe([text('RESUMED_OK')], 'SECOND_PROMPT', ['--resume', id], box);
    expect(run.code).toBe(0);
    // The cache breakpoint moves to each request's last message; the conversation is the same.
    const messages = withoutCacheMarks(messagesOf(run, 0));
    expect(messages.slice(0, earlier.length)).toEqual(withoutCacheMarks(earlier));
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(blockTexts(messages[3]).join('')).toBe('FIRST_FINAL');
    expect(blockTexts(messages[4]).join('')).toContain('SECOND_PROMPT');
    expect(resultOf(run)).toMatchObject({ subtype: 'success', result: 'RESUMED_OK', session_id: id });
  });

  test('stream-json: init first, one assistant line per completed block (same message id), one user line per tool result, result last, nothing else', async () => {
    const box = makeSandbox({ 'x.txt': 'x\n', 'y.txt': 'y\n' });
    const run = await probe(
      [
        {
          kind: 'message',
          blocks: [
            { type: 'text', text: 'Reading both.' },
            { type: 'tool_use', id: 'toolu_x', name: 'Read', input: { file_path: 'x.txt' } },
            { type: 'tool_use', id: 'toolu_y', name: 'Read', input: { file_path: 'y.txt' } },
          ],
        },
        text('Both read.'),
      ],
      'read x and y',
      [],
      box,
    );
    expect(run.code).toBe(0);
    // parseLines already required every stdout line to be one JSON object of a known shape.
    expect(run.stdout.endsWith('\n')).toBe(true);
    expect(run.lines.map((l) => l.type).sort()).toEqual(['assistant', 'assistant', 'assistant', 'assistant', 'result', 'system', 'user', 'user']);
    const assistants = only(run.lines, 'assistant');
    expect(assistants.map((l) => l.message.content.map((b) => b.type))).toEqual([['text'], ['tool_use'], ['tool_use'], ['text']]);
    expect(assistants.slice(0, 3).every((l) => l.message.id === assistants[0]!.message.id)).toBe(true);
    expect(assistants[3]!.message.id).not.toBe(assistants[0]!.message.id);
    // One line per result, each after its own call's line (two safe Reads may finish in either order).
    const users = only(run.lines, 'user');
    const ids = users.map((l) => (l.message.content as { tool_use_id?: string }[]).map((b) => b.tool_use_id));
    expect(ids.flat().sort()).toEqual(['toolu_x', 'toolu_y']);
    expect(ids.every((one) => one.length === 1)).toBe(true);
    for (const user of users) {
      const id = (user.message.content as readonly { tool_use_id: string }[])[0]!.tool_use_id;
      const call = assistants.findIndex((a) => (a.message.content[0] as { id?: string }).id === id);
      expect(run.lines.indexOf(assistants[call]!)).toBeLessThan(run.lines.indexOf(user));
    }
    expect(run.lines.indexOf(assistants[3]!)).toBeGreaterThan(Math.max(...users.map((u) => run.lines.indexOf(u))));
    // The next request carries them in call order whatever order they finished in.
    expect((messagesOf(run, 1)[2]!.content as readonly { tool_use_id: string }[]).map((b) => b.tool_use_id)).toEqual(['toolu_x', 'toolu_y']);
    resultOf(run);
  });

  test('a thinking block is not replayed in requests that do not enable thinking (SPEC §7)', async () => {
    const box = makeSandbox();
    const run = await probe(
      [
        { kind: 'message', blocks: [{ type: 'thinking', thinking: 'plan it', signature: 'sig-t' }, { type: 'tool_use', id: 'toolu_g', name: 'Glob', input: { pattern: '*' } }] },
        text('done'),
      ],
      'look around',
      // Thinking is on by default (test/cli/modelDefaults.test.ts checks its replay); off here.
      ['--max-thinking-tokens', '0'],
      box,
    );
    expect(run.code).toBe(0);
    expect(run.server.requests[1]!.body!.thinking).toBeUndefined();
    expect(JSON.stringify(messagesOf(run, 1))).not.toContain('"thinking"');
    expect(messagesOf(run, 1)[1]!.content).toEqual([{ type: 'tool_use', id: 'toolu_g', name: 'Glob', input: { pattern: '*' } }]);
  });

  test('errors as results: unknown tool, schema errors, non-JSON input, Edit of a never-Read file; the loop goes on and the next request is valid', async () => {
    const box = makeSandbox({ 'guarded.txt': 'ORIGINAL\n' });
    const run = await probe(
      [
        tools(
          { id: 'toolu_unknown', name: 'Reed', input: { file_path: 'guarded.txt' } },
          { id: 'toolu_schema', name: 'Read', input: { bogus_param: 1 } },
          { id: 'toolu_json', name: 'Glob', rawInput: '{"pattern": *.txt oops' },
          { id: 'toolu_edit', name: 'Edit', input: { file_path: 'guarded.txt', old_string: 'ORIGINAL', new_string: 'CHANGED' } },
        ),
        text('Noted.'),
      ],
      'try things',
      ['--permission-mode', 'acceptEdits'],
      box,
    );
    expect(run.code).toBe(0);
    expect(run.server.requests).toHaveLength(2);
    const results = toolResults(run);
    expect(results.map((r) => [r.tool_use_id, r.is_error])).toEqual([
      ['toolu_unknown', true],
      ['toolu_schema', true],
      ['toolu_json', true],
      ['toolu_edit', true],
    ]);
    const [unknown, schema, json, edit] = results;
    expect(unknown!.text).toContain('Reed');
    expect(unknown!.text).toContain('Read'); // the close name is suggested
    expect(schema!.text).toContain('file_path');
    expect(schema!.text).toContain('bogus_param');
    expect(json!.text).toContain('{\\"pattern\\": *.txt');
    expect(json!.text).toMatch(/JSON/);
    expect(edit!.text).toMatch(/[Rr]ead/);
    expect(readFileSync(join(box.cwd, 'guarded.txt'), 'utf8')).toBe('ORIGINAL\n');
    // The replayed tool_use blocks keep object inputs, so the next request is valid.
    const next = messagesOf(run, 1);
    const replayed = next[1]!;
    expect(Array.isArray(replayed.content)).toBe(true);
    for (const block of replayed.content as readonly { type: string; input?: unknown }[]) {
      if (block.type === 'tool_use') expect(typeof block.input === 'object' && block.input !== null && !Array.isArray(block.input)).toBe(true);
    }
    expect(resultOf(run)).toMatchObject({ subtype: 'success', result: 'Noted.' });
  });

  test('barrier: Read, Edit, Read of one file in one response: results in that order, the second Read sees the edit', async () => {
    const box = makeSandbox({ 'f.txt': 'BEFORE_EDIT\n' });
    const run = await probe(
      [
        tools(
          { id: 'toolu_r1', name: 'Read', input: { file_path: 'f.txt' } },
          { id: 'toolu_e', name: 'Edit', input: { file_path: 'f.txt', old_string: 'BEFORE_EDIT', new_string: 'AFTER_EDIT' } },
          { id: 'toolu_r2', name: 'Read', input: { file_path: 'f.txt' } },
        ),
        text('Edited.'),
      ],
      'edit f',
      ['--permission-mode', 'acceptEdits'],
      box,
    );
    expect(run.code).toBe(0);
    const results = toolResults(run);
    expect(results.map((r) => [r.tool_use_id, r.is_error ?? false])).toEqual([
      ['toolu_r1', false],
      ['toolu_e', false],
      ['toolu_r2', false],
    ]);
    expect(results[0]!.text).toContain('BEFORE_EDIT');
    expect(results[2]!.text).toContain('AFTER_EDIT');
    expect(results[2]!.text).not.toContain('BEFORE_EDIT');
    const fed = messagesOf(run, 1);
    expect((fed[2]!.content as readonly { tool_use_id: string }[]).map((b) => b.tool_use_id)).toEqual(['toolu_r1', 'toolu_e', 'toolu_r2']);
  });

  test('two read-only shell commands and a Read run at the same time', async ({ signal }) => {
    const box = makeSandbox({ 'r.txt': 'READ_SIDE\n' });
    // Each command reads its own FIFO (read-only, so both may run at once) and ends only when the
    // test writes to it, which it does once the Read's result is out AND both commands hold their
    // FIFO open at the same moment. Run one after the other, or behind the Read, they would wait
    // for each other and never end: vitest's hang bound fails the test and its signal kills the
    // child. The commands' own timeout is longer than that bound, so no window is left to miss.
    // (It used to be two `sleep 1` measured against a window, which a loaded machine missed.)
    for (const name of ['b1.fifo', 'b2.fifo']) execFileSync('mkfifo', [join(box.cwd, name)]);
    let stdout = '';
    const released = releaseWhenBothRead(box.cwd, ['b1.fifo', 'b2.fifo'], () => stdout.includes('"tool_use_id":"toolu_read"'), signal);
    const run = await probe(
      [
        tools(
          { id: 'toolu_b1', name: 'Bash', input: { command: 'cat b1.fifo', timeout: 600_000 } },
          { id: 'toolu_b2', name: 'Bash', input: { command: 'cat b2.fifo', timeout: 600_000 } },
          { id: 'toolu_read', name: 'Read', input: { file_path: 'r.txt' } },
        ),
        text('Ran.'),
      ],
      'run them',
      [],
      box,
      {},
      (out) => (stdout = out),
      signal,
    );
    expect(run.code).toBe(0);
    expect(await released).toBe(true);
    // The Read was not held behind them: its result line came out first.
    const users = only(run.lines, 'user');
    const ids = users.map((l) => (l.message.content as readonly { tool_use_id: string }[])[0]!.tool_use_id);
    expect(ids[0]).toBe('toolu_read');
    expect(ids.slice(1).sort()).toEqual(['toolu_b1', 'toolu_b2']);
    expect(toolResults(run).every((r) => !r.is_error)).toBe(true);
    expect(toolResults(run).map((r) => r.text).join(' ')).toMatch(/from b1\.fifo[^]*from b2\.fifo|from b2\.fifo[^]*from b1\.fifo/);
    // The next request still carries them in call order.
    expect((messagesOf(run, 1)[2]!.content as readonly { tool_use_id: string }[]).map((b) => b.tool_use_id)).toEqual(['toolu_b1', 'toolu_b2', 'toolu_read']);
  });
});
