/**
 * Claude Code's flags that used to be parsed and then ignored, through the BUILT command against
 * the scripted server: `--include-hook-events` (hook_started / hook_response lines), `--debug-file`,
 * `--agent` with `.claude/agents/*.md`, `--no-session-persistence`, `--resume-session-at`, and
 * text mode's retry notices and `API Error: <status> <message>` line.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { resolveModel } from '../../src/context/modelTable.js';
import type { OutputLine } from '../../src/cli/outputSchemas.js';
import { workspaceSlug } from '../../src/session/paths.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { assertBuilt, makeSandbox, parseLines, removeSandboxes, runAgainst } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const text = (t: string, id?: string): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'text', text: t }], ...(id ? { id } : {}) });
const read = (file: string): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'tool_use', name: 'Read', input: { file_path: file } }] });
const systemOf = (r: MessagesRequest | undefined): string => (typeof r?.system === 'string' ? r.system : (r?.system ?? []).map((b) => b.text).join(''));
const sessionsDir = (box: { home: string; cwd: string }) => join(box.home, '.rxagent', 'projects', workspaceSlug(box.cwd));
const hookLines = (lines: readonly OutputLine[]) =>
  lines.filter((l): l is Extract<OutputLine, { subtype: 'hook_started' | 'hook_response' }> => l.type === 'system' && (l.subtype === 'hook_started' || l.subtype === 'hook_response'));

describe.concurrent('flags Claude Code scripts and the Agent SDK pass', () => {
  test('--include-hook-events: hook_started then hook_response (stdout, exit code, outcome) around each hook; SessionStart without the flag too', async () => {
    const settings = {
      hooks: {
        SessionStart: [{ hooks: [{ type: 'command', command: 'echo started-context' }] }],
        PreToolUse: [{ matcher: 'Read', hooks: [{ type: 'command', command: 'echo checked; echo to-stderr >&2' }] }],
      },
    };
    const box = makeSandbox({ '.claude/settings.json': JSON.stringify(settings), 'a.txt': 'alpha\n' });
    const args = ['-p', 'go', '--output-format', 'stream-json', '--verbose', '--no-sandbox'];
    const withFlag = await runAgainst([read('a.txt'), text('done')], [...args, '--include-hook-events'], box);
    expect(withFlag.code).toBe(0);
    const lines = parseLines(withFlag.stdout);
    const hooks = hookLines(lines);
    expect(hooks.map((l) => `${l.subtype} ${l.hook_name}`)).toEqual([
      'hook_started SessionStart:startup',
      'hook_response SessionStart:startup',
      'hook_started PreToolUse:Read',
      'hook_response PreToolUse:Read',
    ]);
    const [started, response] = hooks.slice(2);
    expect(response).toMatchObject({ hook_id: started!.hook_id, hook_event: 'PreToolUse', stdout: 'checked\n', stderr: 'to-stderr\n', exit_code: 0, outcome: 'success' });
    // The hook's lines come before the tool's result line.
    const toolResultAt = lines.findIndex((l) => l.type === 'user');
    expect(lines.indexOf(response!)).toBeLessThan(toolResultAt);

    const without = await runAgainst([read('a.txt'), text('done')], args, box);
    expect(hookLines(parseLines(without.stdout)).map((l) => `${l.subtype} ${l.hook_name}`)).toEqual(['hook_started SessionStart:startup', 'hook_response SessionStart:startup']);
  });

  test('--include-hook-events without stream-json output, --resume-session-at without --resume, --debug interactively: usage errors, exit 2', async () => {
    const box = makeSandbox();
    for (const [args, message] of [
      [['-p', 'x', '--include-hook-events'], '--include-hook-events needs --output-format stream-json'],
      [['-p', 'x', '--resume-session-at', 'abc'], '--resume-session-at needs --resume'],
      [['--debug'], '--debug works with -p'],
      [['--no-session-persistence'], '--no-session-persistence works with -p'],
    ] as const) {
      const run = await runAgainst([], args, box);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(message);
    }
  });

  test('--debug-file: the run, its requests, tools, hooks and terminal are logged to the file; stdout is unchanged', async () => {
    const settings = { hooks: { PostToolUse: [{ hooks: [{ type: 'command', command: 'true' }] }] } };
    const box = makeSandbox({ '.claude/settings.json': JSON.stringify(settings), 'a.txt': 'alpha\n' });
    const run = await runAgainst([read('a.txt'), text('THE ANSWER')], ['-p', 'go', '--debug-file', 'logs/debug.txt', '--no-sandbox'], box);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('THE ANSWER\n');
    const log = readFileSync(join(box.cwd, 'logs', 'debug.txt'), 'utf8');
    expect(log).toMatch(/^\S+Z \[DEBUG\] rxagent /);
    expect(log).toMatch(/iteration 1: request to /);
    expect(log).toMatch(/tool Read \S+ started/);
    expect(log).toMatch(/hook PostToolUse:Read success exit 0/);
    expect(log).toMatch(/terminal: completed, 2 turns/);

    const toStderr = await runAgainst([text('ok')], ['-p', 'go', '--debug'], box);
    expect(toStderr.stdout).toBe('ok\n');
    expect(toStderr.stderr).toMatch(/\[DEBUG\] terminal: completed/);
  });

  test('--agent runs the main thread as a .claude/agents definition: its prompt, its tools (Claude Code-only ones left out with a warning), its model; a broken agent file is one warning', async () => {
    const agent = ['---', 'name: reviewer', 'description: Reviews code', 'tools: Read, Grep, TodoWrite', 'model: haiku', 'color: blue', '---', 'You are the REVIEWER.'].join('\n');
    const box = makeSandbox({ '.claude/agents/reviewer.md': agent, '.claude/agents/broken.md': '---\nname: broken\n---\n' });
    const run = await runAgainst([text('reviewed')], ['-p', 'review', '--agent', 'reviewer'], box);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('reviewed\n');
    const request = run.server.requests[0]!.body!;
    expect(systemOf(request)).toContain('You are the REVIEWER.');
    expect(systemOf(request)).not.toContain('You are rxagent');
    expect((request.tools ?? []).map((t) => t.name).sort()).toEqual(['Grep', 'Read']);
    expect(request.model).toBe(resolveModel('haiku', {}));
    expect(run.stderr).toContain('TodoWrite is a tool rxagent does not have; left out');
    expect(run.stderr).toContain(join(box.cwd, '.claude', 'agents', 'broken.md'));

    const unknown = await runAgainst([text('never')], ['-p', 'x', '--agent', 'nobody'], box);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/--agent nobody: no such agent \(known: general-purpose, reviewer\)/);
    expect(unknown.server.requests).toHaveLength(0);
  });

  test("--agent applies the definition's permissionMode to the main thread unless --permission-mode is given", async () => {
    const agent = ['---', 'name: writer', 'description: Writes files', 'tools: Write', 'permissionMode: acceptEdits', '---', 'You write.'].join('\n');
    const box = makeSandbox({ '.claude/agents/writer.md': agent });
    const write = (name: string): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: join(box.cwd, name), content: 'x' } }] });
    const args = ['--output-format', 'stream-json', '--verbose', '--agent', 'writer'];
    const accepted = await runAgainst([write('a.txt'), text('wrote')], ['-p', 'write', ...args], box);
    expect(accepted.code).toBe(0);
    expect(parseLines(accepted.stdout)[0]).toMatchObject({ type: 'system', subtype: 'init', permissionMode: 'acceptEdits' });
    expect(existsSync(join(box.cwd, 'a.txt'))).toBe(true);
    // The flag wins: in default mode a -p run cannot ask, so the Write is refused.
    const flagged = await runAgainst([write('b.txt'), text('could not')], ['-p', 'write', ...args, '--permission-mode', 'default'], box);
    expect(parseLines(flagged.stdout)[0]).toMatchObject({ subtype: 'init', permissionMode: 'default' });
    expect(existsSync(join(box.cwd, 'b.txt'))).toBe(false);
  });

  test('.claude/agents definitions are subagents too (the Agent tool lists them)', async () => {
    const box = makeSandbox({ '.claude/agents/finder.md': '---\ndescription: Finds files\n---\nYou are the FINDER.' });
    const run = await runAgainst([text('ok')], ['-p', 'x', '--output-format', 'stream-json', '--verbose'], box);
    const init = parseLines(run.stdout)[0]!;
    expect(init).toMatchObject({ type: 'system', subtype: 'init', agents: ['general-purpose', 'finder'] });
  });

  test('--no-session-persistence writes no transcript; resuming such a session is not possible, an existing one resumes unchanged', async () => {
    const box = makeSandbox({ 'a.txt': 'alpha\n' });
    const id = '3f2b8a4e-1c5d-4e6f-8a9b-0c1d2e3f4a5b';
    const ephemeral = await runAgainst([read('a.txt'), text('one')], ['-p', 'go', '--no-session-persistence', '--session-id', id], box);
    expect(ephemeral.code).toBe(0);
    expect(existsSync(join(sessionsDir(box), `${id}.jsonl`))).toBe(false);
    expect(existsSync(join(sessionsDir(box), id))).toBe(false);
    const again = await runAgainst([text('never')], ['-p', 'more', '--resume', id], box);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`session ${id} not found`);

    const kept = await runAgainst([text('first answer')], ['-p', 'first', '--session-id', id], box);
    expect(kept.code).toBe(0);
    const file = join(sessionsDir(box), `${id}.jsonl`);
    const before = readFileSync(file, 'utf8');
    const resumed = await runAgainst([text('second answer')], ['-p', 'second', '--resume', id, '--no-session-persistence'], box);
    expect(resumed.code).toBe(0);
    expect(JSON.stringify(resumed.server.requests[0]!.body!.messages)).toContain('first answer');
    expect(readFileSync(file, 'utf8')).toBe(before);
  });

  test('--resume-session-at: the history ends at that assistant message (by message.id or record uuid); later turns are left out, the new turn chains on', async () => {
    const box = makeSandbox();
    const id = '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d';
    // Each scripted server numbers its messages from 1: the ids are made unique here, as the API's are.
    const first = await runAgainst([text('ANSWER ONE', 'msg_answer_one')], ['-p', 'QUESTION ONE', '--session-id', id, '--output-format', 'stream-json', '--verbose'], box);
    const firstMessageId = parseLines(first.stdout).flatMap((l) => (l.type === 'assistant' ? [l.message.id] : []))[0]!;
    expect(firstMessageId).toBe('msg_answer_one');
    await runAgainst([text('ANSWER TWO', 'msg_answer_two')], ['-p', 'QUESTION TWO', '--resume', id], box);

    const atFirst = await runAgainst([text('ANSWER THREE')], ['-p', 'QUESTION THREE', '--resume', id, '--resume-session-at', firstMessageId], box);
    expect(atFirst.code).toBe(0);
    const sent = JSON.stringify(atFirst.server.requests[0]!.body!.messages);
    expect(sent).toContain('ANSWER ONE');
    expect(sent).not.toContain('QUESTION TWO');
    expect(sent).toContain('QUESTION THREE');

    // A plain resume now follows the new branch.
    const after = await runAgainst([text('ok')], ['-p', 'QUESTION FOUR', '--resume', id], box);
    const sentAfter = JSON.stringify(after.server.requests[0]!.body!.messages);
    expect(sentAfter).toContain('ANSWER THREE');
    expect(sentAfter).not.toContain('ANSWER TWO');

    // A record uuid works too: the first user record's.
    const records = readFileSync(join(sessionsDir(box), `${id}.jsonl`), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { uuid: string; type: string });
    const firstUser = records.find((r) => r.type === 'user')!;
    const atUser = await runAgainst([text('ok')], ['-p', 'QUESTION FIVE', '--resume', id, '--resume-session-at', firstUser.uuid], box);
    const sentAtUser = JSON.stringify(atUser.server.requests[0]!.body!.messages);
    expect(sentAtUser).toContain('QUESTION ONE');
    expect(sentAtUser).not.toContain('ANSWER ONE');

    const missing = await runAgainst([text('never')], ['-p', 'x', '--resume', id, '--resume-session-at', 'msg_nothing'], box);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain(`--resume-session-at msg_nothing: no such message in session ${id}`);
  });

  test('text mode: each retry is a notice on stderr, and the final line is "API Error: <status> <message>"', async () => {
    const box = makeSandbox();
    const busy = { kind: 'http_error' as const, status: 529, errorType: 'overloaded_error', message: 'Overloaded', headers: { 'retry-after': '0' } };
    const run = await runAgainst([busy, busy, busy], ['-p', 'hi'], { ...box, env: { RXAGENT_MAX_RETRIES: '2' } });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    const lines = run.stderr.trim().split('\n');
    expect(lines.filter((l) => l.startsWith('API Error (529 overloaded_error) · retrying in'))).toHaveLength(2);
    expect(lines.at(-1)).toMatch(/^API Error: 529 overloaded_error: Overloaded \(request id req_\w+\)$/);

    const stream = await runAgainst([busy, busy, busy], ['-p', 'hi', '--output-format', 'stream-json', '--verbose'], { ...box, env: { RXAGENT_MAX_RETRIES: '2' } });
    const result = parseLines(stream.stdout).find((l) => l.type === 'result')!;
    expect(result).toMatchObject({ is_error: true });
    expect(result.result).toMatch(/^API Error: 529 overloaded_error: Overloaded/);
    // stream-json has its api_retry lines: no notices on stderr there.
    expect(stream.stderr).not.toContain('retrying in');
  });
});

describe.concurrent('hook events around subagents and compaction', () => {
  test('SubagentStart adds context to the child prompt; SubagentStop blocking once sends its reason back to the child, which goes on', async () => {
    const startHook = `cat > subagent-start.json; echo '{"hookSpecificOutput":{"hookEventName":"SubagentStart","additionalContext":"START CONTEXT"}}'`;
    // Blocks the first stop only (a marker file says it already did).
    const stopHook = `cat > subagent-stop-$(ls | grep -c subagent-stop).json; if [ -e blocked-once ]; then exit 0; fi; touch blocked-once; echo 'CHECK AGAIN' >&2; exit 2`;
    const settings = {
      hooks: {
        SubagentStart: [{ matcher: 'helper', hooks: [{ type: 'command', command: startHook }] }],
        SubagentStop: [{ hooks: [{ type: 'command', command: stopHook }] }],
      },
    };
    const agents = JSON.stringify({ helper: { description: 'Helps', prompt: 'You are the HELPER.', tools: ['Read'] } });
    const box = makeSandbox({ '.claude/settings.json': JSON.stringify(settings) });
    const childRequests: MessagesRequest[] = [];
    let parentCalls = 0;
    const script = (request: MessagesRequest): ScriptedResponse | undefined => {
      if (systemOf(request) === 'You are the HELPER.') {
        childRequests.push(request);
        return text(childRequests.length === 1 ? 'CHILD FIRST' : 'CHILD SECOND');
      }
      parentCalls += 1;
      if (parentCalls === 1) return { kind: 'message', blocks: [{ type: 'tool_use', name: 'Agent', input: { description: 'help', prompt: 'Do the thing.', subagent_type: 'helper' } }] };
      return text('parent done');
    };
    const run = await runAgainst(script, ['-p', 'go', '--agents', agents, '--no-sandbox'], box);
    expect(run.code).toBe(0);
    expect(childRequests).toHaveLength(2);
    expect(JSON.stringify(childRequests[0]!.messages[0])).toContain('START CONTEXT');
    expect(JSON.stringify(childRequests[1]!.messages.at(-1))).toContain('CHECK AGAIN');
    const start = JSON.parse(readFileSync(join(box.cwd, 'subagent-start.json'), 'utf8')) as Record<string, unknown>;
    expect(start).toMatchObject({ hook_event_name: 'SubagentStart', agent_type: 'helper' });
    expect(String(start['agent_id'])).toMatch(/^agent-/);
    const stops = readdirSync(box.cwd).filter((f) => /^subagent-stop-\d\.json$/.test(f)).sort();
    expect(stops).toHaveLength(2);
    const [firstStop, secondStop] = stops.map((f) => JSON.parse(readFileSync(join(box.cwd, f), 'utf8')) as Record<string, unknown>);
    expect(firstStop).toMatchObject({ hook_event_name: 'SubagentStop', agent_type: 'helper', agent_id: start['agent_id'], stop_hook_active: false, last_assistant_message: 'CHILD FIRST' });
    expect(String(firstStop!['agent_transcript_path'])).toMatch(/subagents\/agent-[0-9a-f]+\.jsonl$/);
    expect(secondStop).toMatchObject({ stop_hook_active: true, last_assistant_message: 'CHILD SECOND' });
    // The parent's answer is the child's final one.
    expect(JSON.stringify(run.server.requests.at(-1)!.body!.messages.at(-1))).toContain('CHILD SECOND');
  });

  test('PreCompact runs before the summarization request of a compaction, with trigger auto', async () => {
    const settings = { hooks: { PreCompact: [{ matcher: 'auto', hooks: [{ type: 'command', command: 'cat > pre-compact.json' }] }] } };
    const box = makeSandbox({ '.claude/settings.json': JSON.stringify(settings), 'a.txt': 'alpha\n', 'b.txt': 'beta\n', 'c.txt': 'gamma\n' });
    const tooLong: ScriptedResponse = { kind: 'http_error', status: 400, errorType: 'invalid_request_error', message: 'prompt is too long: 250000 tokens > 200000 maximum' };
    const run = await runAgainst([read('a.txt'), read('b.txt'), read('c.txt'), tooLong, text('SUMMARY'), text('ALL DONE')], ['-p', 'read them', '--no-sandbox'], box);
    expect(run.code).toBe(0);
    expect(run.stdout).toBe('ALL DONE\n');
    const input = JSON.parse(readFileSync(join(box.cwd, 'pre-compact.json'), 'utf8')) as Record<string, unknown>;
    expect(input).toMatchObject({ hook_event_name: 'PreCompact', trigger: 'auto', custom_instructions: null, cwd: box.cwd });
  });

  test('a PreCompact hook that matches only manual compactions does not run for an automatic one', async () => {
    const settings = { hooks: { PreCompact: [{ matcher: 'manual', hooks: [{ type: 'command', command: 'touch ran' }] }] } };
    const box = makeSandbox({ '.claude/settings.json': JSON.stringify(settings), 'a.txt': 'alpha\n', 'b.txt': 'beta\n' });
    const tooLong: ScriptedResponse = { kind: 'http_error', status: 400, errorType: 'invalid_request_error', message: 'prompt is too long: 250000 tokens > 200000 maximum' };
    const run = await runAgainst([read('a.txt'), read('b.txt'), tooLong, text('SUMMARY'), text('ALL DONE')], ['-p', 'read them', '--no-sandbox'], box);
    expect(run.code).toBe(0);
    // It did compact (the summarization request is the fourth), without the manual-only hook.
    expect(run.server.requests).toHaveLength(5);
    expect(existsSync(join(box.cwd, 'ran'))).toBe(false);
  });
});
