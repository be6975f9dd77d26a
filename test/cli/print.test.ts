/**
 * The built `rxagent` command end to end, as a child process against the scripted model server:
 * every output format, each terminal's exit status / subtype / terminal_reason, sessions,
 * permission modes, hooks from --settings, usage errors and the stdin prompt.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ScriptedResponse } from '../../src/testing/script.js';
import type { OutputLine } from '../../src/cli/outputSchemas.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { DEFAULT_MODEL } from '../../src/context/modelTable.js';
import { gate } from '../../src/testing/gate.js';
import { assertBuilt, makeSandbox, parseLines, removeSandboxes, runAgainst, runCli, startCli } from './helpers.js';
import { workspaceSlug } from '../../src/session/paths.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const text = (t: string): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'text', text: t, chunkSize: 4 }] });
const readThenAnswer: ScriptedResponse[] = [
  {
    kind: 'message',
    usage: { input_tokens: 50, output_tokens: 20 },
    blocks: [
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_use', id: 'toolu_read_1', name: 'Read', input: { file_path: 'notes.txt' } },
    ],
  },
  text('The note says hello.'),
];

function only<T extends OutputLine['type']>(lines: OutputLine[], type: T): Extract<OutputLine, { type: T }>[] {
  return lines.filter((l): l is Extract<OutputLine, { type: T }> => l.type === type);
}

function resultOf(lines: OutputLine[]) {
  const results = only(lines, 'result');
  expect(results).toHaveLength(1);
  expect(lines[lines.length - 1]).toBe(results[0]);
  return results[0]!;
}

describe.concurrent('output formats', () => {
  test('text prints only the final answer and exits 0', async () => {
    const box = makeSandbox();
    const run = await runAgainst([text('Hello there.')], ['-p', 'say hi'], box);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('Hello there.\n');
    expect(run.code).toBe(0);
    const body = run.server.requests[0]!.body!;
    expect(body.model).toBe(DEFAULT_MODEL);
    expect(body.max_tokens).toBe(32000);
    expect(body.tools?.map((t) => t.name)).toEqual(['Read', 'Write', 'Edit', 'Glob', 'Grep', 'Bash', 'Agent']);
    // A text block with its cache breakpoint (prompt caching is on by default).
    expect(JSON.stringify(body.system)).toContain(JSON.stringify(box.cwd).slice(1, -1));
  });

  test('json prints the result object only', async () => {
    const box = makeSandbox({ 'notes.txt': 'hello\n' });
    const run = await runAgainst(readThenAnswer, ['-p', 'read it', '--output-format', 'json'], box);
    expect(run.code).toBe(0);
    const lines = parseLines(run.stdout);
    expect(lines).toHaveLength(1);
    const result = resultOf(lines);
    expect(result).toMatchObject({ subtype: 'success', is_error: false, result: 'The note says hello.', num_turns: 2, terminal_reason: 'completed', stop_reason: 'end_turn' });
    expect(result.usage.input_tokens).toBeGreaterThanOrEqual(50);
    expect(result.total_cost_usd).toBeGreaterThan(0);
  });

  test('stream-json: init first, a line per block and per tool result, one result last, all valid', async () => {
    const box = makeSandbox({ 'notes.txt': 'hello\n' });
    const run = await runAgainst(readThenAnswer, ['-p', 'read it', '--output-format', 'stream-json', '--verbose'], box);
    expect(run.code).toBe(0);
    const lines = parseLines(run.stdout);
    expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init', cwd: box.cwd, model: DEFAULT_MODEL, permissionMode: 'default' });
    const sessionId = lines[0]!.session_id;
    expect(lines.every((l) => l.session_id === sessionId)).toBe(true);
    expect(lines.map((l) => l.type)).toEqual(['system', 'assistant', 'assistant', 'user', 'assistant', 'result']);
    const [first, second] = only(lines, 'assistant');
    expect(first!.message.id).toBe(second!.message.id);
    expect(second!.message.content).toEqual([{ type: 'tool_use', id: 'toolu_read_1', name: 'Read', input: { file_path: 'notes.txt' } }]);
    const user = only(lines, 'user')[0]!;
    expect(user.message.content).toEqual([expect.objectContaining({ type: 'tool_result', tool_use_id: 'toolu_read_1' })]);
    expect(JSON.stringify(user.message.content)).toContain('hello');
    expect(resultOf(lines)).toMatchObject({ subtype: 'success', session_id: sessionId });
  });

  test('--include-partial-messages adds stream_event lines in API event order', async () => {
    const box = makeSandbox();
    const run = await runAgainst([text('abcdefgh')], ['-p', 'x', '--output-format', 'stream-json', '--include-partial-messages'], box);
    expect(run.code).toBe(0);
    const events = only(parseLines(run.stdout), 'stream_event').map((l) => l.event.type);
    expect(events[0]).toBe('message_start');
    expect(events.filter((t) => t === 'content_block_delta')).toHaveLength(2);
    expect(events.slice(-2)).toEqual(['message_delta', 'message_stop']);
  });
});

describe.concurrent('terminals and exit statuses', () => {
  test('--max-turns 1 with a tool call: the tool runs, error_max_turns, exit 1, one request', async () => {
    const box = makeSandbox({ 'notes.txt': 'hello\n' });
    const run = await runAgainst(readThenAnswer, ['-p', 'read it', '--max-turns', '1', '--output-format', 'stream-json'], box);
    expect(run.code).toBe(1);
    expect(run.server.requests).toHaveLength(1);
    const lines = parseLines(run.stdout);
    expect(only(lines, 'user')).toHaveLength(1);
    expect(resultOf(lines)).toMatchObject({ subtype: 'error_max_turns', is_error: true, terminal_reason: 'max_turns', num_turns: 1 });
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  test('API errors past the retries: api_retry lines, error_during_execution naming the status, exit 1', async () => {
    const box = makeSandbox();
    const overloaded: ScriptedResponse = { kind: 'http_error', status: 529 };
    const run = await runAgainst([overloaded, overloaded], ['-p', 'hi', '--output-format', 'stream-json'], {
      ...box,
      env: { RXAGENT_MAX_RETRIES: '1' },
    });
    expect(run.code).toBe(1);
    const lines = parseLines(run.stdout);
    const retries = lines.filter((l) => l.type === 'system' && l.subtype === 'api_retry');
    expect(retries).toEqual([expect.objectContaining({ attempt: 1, max_retries: 1, error_status: 529, discard_partial: false })]);
    const result = resultOf(lines);
    expect(result).toMatchObject({ subtype: 'error_during_execution', is_error: true, terminal_reason: 'api_error' });
    expect(result.errors?.join(' ')).toContain('529');
    expect(run.stderr).toContain('529');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  test('cost cap: error_max_budget_usd, exit 1', async () => {
    const box = makeSandbox({ 'notes.txt': 'hello\n' });
    const expensive: ScriptedResponse = { ...(readThenAnswer[0] as Extract<ScriptedResponse, { kind: 'message' }>), usage: { input_tokens: 200_000, output_tokens: 10 } };
    const run = await runAgainst([expensive, text('never asked')], ['-p', 'x', '--max-budget-usd', '0.01', '--output-format', 'json'], box);
    expect(run.code).toBe(1);
    expect(run.server.requests).toHaveLength(1);
    expect(resultOf(parseLines(run.stdout))).toMatchObject({ subtype: 'error_max_budget_usd', is_error: true, terminal_reason: 'budget_exhausted' });
  });
});

describe.concurrent('sessions', () => {
  test('--session-id names the session; --resume sends the earlier conversation, then the new prompt', async () => {
    const box = makeSandbox();
    const id = '6f1c1a52-4a55-4d55-9a1e-3b1f1b0c7e11';
    const first = await runAgainst([text('First answer.')], ['-p', 'first question', '--session-id', id, '--output-format', 'json'], box);
    expect(first.code).toBe(0);
    expect(resultOf(parseLines(first.stdout)).session_id).toBe(id);

    const second = await runAgainst([text('Second answer.')], ['-p', 'second question', '--resume', id, '--output-format', 'json'], box);
    expect(second.code).toBe(0);
    expect(resultOf(parseLines(second.stdout)).session_id).toBe(id);
    const messages = second.server.requests[0]!.body!.messages;
    expect(JSON.stringify(messages.map((m) => m.role))).toBe('["user","assistant","user"]');
    expect(JSON.stringify(messages[0])).toContain('first question');
    expect(JSON.stringify(messages[1])).toContain('First answer.');
    expect(JSON.stringify(messages[2])).toContain('second question');
  });

  test("-p --resume and --continue: total_cost_usd and modelUsage are the session's (the transcript's spending plus this run's); a fork starts at 0", async () => {
    const box = makeSandbox();
    const id = '6f1c1a52-4a55-4d55-9a1e-3b1f1b0c7e12';
    const usage = { input_tokens: 1000, output_tokens: 100 };
    const answer = (t: string): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'text', text: t }], usage });
    const first = resultOf(parseLines((await runAgainst([answer('One.')], ['-p', 'one', '--session-id', id, '--output-format', 'json'], box)).stdout));
    expect(first.total_cost_usd).toBeGreaterThan(0);
    const second = resultOf(parseLines((await runAgainst([answer('Two.')], ['-p', 'two', '--resume', id, '--output-format', 'json'], box)).stdout));
    expect(second.total_cost_usd).toBeCloseTo(2 * first.total_cost_usd, 10);
    expect(Object.values(second.modelUsage)[0]).toMatchObject({ inputTokens: 2000, outputTokens: 200 });
    const third = resultOf(parseLines((await runAgainst([answer('Three.')], ['-p', 'three', '--continue', '--output-format', 'json'], box)).stdout));
    expect(third.total_cost_usd).toBeCloseTo(3 * first.total_cost_usd, 10);
    const forked = resultOf(parseLines((await runAgainst([answer('Fork.')], ['-p', 'fork', '--resume', id, '--fork-session', '--output-format', 'json'], box)).stdout));
    expect(forked.total_cost_usd).toBeCloseTo(first.total_cost_usd, 10);
  });

  test('--resume of an unknown session: one line on stderr, exit 1', async () => {
    const box = makeSandbox();
    const run = await runCli(['-p', 'x', '--resume', '0b0e1c7e-0000-4000-8000-000000000000'], { ...box, baseURL: 'http://127.0.0.1:9' });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe.concurrent('permissions and hooks', () => {
  const readThenEdit: ScriptedResponse[] = [
    { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_r', name: 'Read', input: { file_path: 'a.txt' } }] },
    { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_e', name: 'Edit', input: { file_path: 'a.txt', old_string: 'old', new_string: 'new' } }] },
    text('Done.'),
  ];

  for (const mode of ['default', 'plan'] as const) {
    test(`--permission-mode ${mode} refuses the Edit (nobody to ask) and reports the denial`, async () => {
      const box = makeSandbox({ 'a.txt': 'old\n' });
      const run = await runAgainst(readThenEdit, ['-p', 'edit', '--permission-mode', mode, '--output-format', 'stream-json'], box);
      expect(run.code).toBe(0);
      expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('old\n');
      const lines = parseLines(run.stdout);
      const editResult = only(lines, 'user').find((l) => JSON.stringify(l.message.content).includes('toolu_e'));
      expect(JSON.stringify(editResult)).toContain('"is_error":true');
      expect(resultOf(lines).permission_denials).toEqual([expect.objectContaining({ tool_name: 'Edit', tool_use_id: 'toolu_e' })]);
    });
  }

  test('--dangerously-skip-permissions lets the Edit through', async () => {
    const box = makeSandbox({ 'a.txt': 'old\n' });
    const run = await runAgainst(readThenEdit, ['-p', 'edit', '--dangerously-skip-permissions', '--output-format', 'json'], box);
    expect(run.code).toBe(0);
    expect(readFileSync(join(box.cwd, 'a.txt'), 'utf8')).toBe('new\n');
    expect(resultOf(parseLines(run.stdout)).permission_denials).toEqual([]);
  });

  test('a PreToolUse hook from --settings blocks Bash with its reason', async () => {
    const box = makeSandbox();
    const hook = join(box.cwd, 'no-bash.mjs');
    writeFileSync(hook, "process.stderr.write('shell commands are off today'); process.exit(2);\n");
    writeFileSync(
      join(box.cwd, 'settings.json'),
      JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: `node ${hook}` }] }] } }),
    );
    const script: ScriptedResponse[] = [
      { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_b', name: 'Bash', input: { command: 'echo hi > out.txt' } }] },
      text('Could not.'),
    ];
    const run = await runAgainst(script, ['-p', 'x', '--settings', 'settings.json', '--dangerously-skip-permissions', '--output-format', 'stream-json'], box);
    expect(run.code).toBe(0);
    const user = only(parseLines(run.stdout), 'user')[0]!;
    expect(JSON.stringify(user.message.content)).toContain('shell commands are off today');
    const second = run.server.requests[1]!.body!.messages;
    expect(JSON.stringify(second[second.length - 1])).toContain('shell commands are off today');
  });
});

describe.concurrent('command line', () => {
  test('an unknown option is a usage error: exit 2, one line on stderr, nothing on stdout', async () => {
    const box = makeSandbox();
    const run = await runCli(['-p', 'x', '--no-such-option'], box);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('--no-such-option');
  });

  test('the prompt is read from stdin when -p has none', async () => {
    const box = makeSandbox();
    const run = await runAgainst([text('Got it.')], ['-p', '--tools', ''], { ...box, stdin: 'a prompt from stdin\n' });
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('Got it.\n');
    const body = run.server.requests[0]!.body!;
    expect(JSON.stringify(body.messages[0])).toContain('a prompt from stdin');
    expect(body.tools).toBeUndefined();
  });

  test('--help and --version exit 0', async () => {
    const box = makeSandbox();
    const [help, version] = await Promise.all([runCli(['--help'], box), runCli(['--version'], box)]);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--output-format');
    expect(version.code).toBe(0);
    expect(version.stdout).toMatch(/^\d+\.\d+\.\d+/);
  });
});

describe.concurrent('interrupts and the interactive loop', () => {
  test('SIGINT during a print-mode turn: the result is still printed (aborted_streaming), exit 1', async () => {
    const box = makeSandbox();
    const server = await startScriptedServer({
      // The answer never ends (its end waits on a gate nobody opens): SIGINT always lands mid-stream.
      script: [{ kind: 'message', blocks: [{ type: 'text', text: 'slow answer text' }], endAfter: gate().promise }],
    });
    try {
      const cli = startCli(['-p', 'hi', '--output-format', 'stream-json'], { ...box, baseURL: server.baseURL });
      await server.waitForRequests(1);
      cli.child.kill('SIGINT');
      const { code, stdout } = await cli.done;
      expect(code).toBe(1);
      expect(resultOf(parseLines(stdout))).toMatchObject({ subtype: 'error_during_execution', terminal_reason: 'aborted_streaming' });
    } finally {
      await server.close();
    }
  });

  test('without -p, prompts are read line by line and each turn carries the conversation so far', async () => {
    const box = makeSandbox();
    const run = await runAgainst([text('Answer one.'), text('Answer two.')], [], { ...box, stdin: 'first\nsecond\n' });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Answer one.\n');
    expect(run.stdout).toContain('Answer two.\n');
    expect(run.stdout).toMatch(/-- 1 turn · .* completed/);
    expect(run.stdout).not.toContain('\u001b[');
    const roles = run.server.requests.map((r) => r.body!.messages.map((m) => m.role).join(','));
    expect(roles).toEqual(['user', 'user,assistant,user']);
  });

  test('--continue picks up the latest session of the directory', async () => {
    const box = makeSandbox();
    await runAgainst([text('One.')], ['-p', 'remember 42'], box);
    const run = await runAgainst([text('Two.')], ['-p', 'what number?', '--continue'], box);
    expect(run.code).toBe(0);
    expect(JSON.stringify(run.server.requests[0]!.body!.messages)).toContain('remember 42');
  });
});

describe.concurrent('more command-line cases', () => {
  test('--fork-session continues under a new id and leaves the original transcript as it was', async () => {
    const box = makeSandbox();
    const id = '1a2b3c4d-0000-4000-8000-00000000abcd';
    await runAgainst([text('One.')], ['-p', 'remember 7', '--session-id', id], box);
    const transcript = join(box.home, '.rxagent', 'projects', workspaceSlug(box.cwd), `${id}.jsonl`);
    const before = readFileSync(transcript, 'utf8');
    const run = await runAgainst([text('Two.')], ['-p', 'again', '--resume', id, '--fork-session', '--output-format', 'json'], box);
    expect(run.code).toBe(0);
    const result = resultOf(parseLines(run.stdout));
    expect(result.session_id).not.toBe(id);
    expect(JSON.stringify(run.server.requests[0]!.body!.messages)).toContain('remember 7');
    expect(readFileSync(transcript, 'utf8')).toBe(before);
  });

  test('a missing API key or an unknown --tools name: one line on stderr, no request', async () => {
    const box = makeSandbox();
    const noKey = await runCli(['-p', 'x'], { ...box, env: { ANTHROPIC_API_KEY: '' } });
    expect(noKey.code).toBe(1);
    expect(noKey.stderr).toContain('ANTHROPIC_API_KEY');
    expect(noKey.stderr.trim().split('\n')).toHaveLength(1);
    const badTool = await runCli(['-p', 'x', '--tools', 'Read,Teleport'], box);
    expect(badTool.code).toBe(2);
    expect(badTool.stderr).toContain('Teleport');
    expect(badTool.stdout).toBe('');
  });
});
