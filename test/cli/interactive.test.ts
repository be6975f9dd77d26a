/**
 * The interactive view with piped stdin (not a TTY): a line typed while a turn runs is handed to
 * that turn (queued, absorbed after the current tool batch, seen in its next request) instead of
 * waiting for a turn of its own; piped output has plain tool start/finish lines, no live lines.
 * The Agent tool is offered there as in print mode (child policy and transcripts included).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { gate } from '../../src/testing/gate.js';
import { eventually } from '../eventually.js';
import { createLiveTools } from '../../src/cli/interactive/liveTools.js';
import { workspaceSlug } from '../../src/session/paths.js';
import { assertBuilt, CLI, makeSandbox, removeSandboxes } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const allText = (r: MessagesRequest) => JSON.stringify(r.messages);
const WAIT_FOR_GO = 'while [ ! -e go ]; do sleep 0.02; done; echo slept';

describe('interactive, piped', () => {
  test('a line typed during a tool call reaches the same turn next to the tool result', async () => {
    const box = makeSandbox();
    const script: ScriptedResponse[] = [
      // The command runs until the test creates `go`, which it does once the typed line was
      // queued: a `sleep 1` raced the typing on a busy machine.
      { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_wait', name: 'Bash', input: { command: WAIT_FOR_GO } }] },
      { kind: 'message', blocks: [{ type: 'text', text: 'Slept, and noted your remark.' }] },
    ];
    const server = await startScriptedServer({ script });
    try {
      const child = spawn(process.execPath, [CLI, '--dangerously-skip-permissions'], {
        cwd: box.cwd,
        env: { PATH: process.env['PATH'] ?? '', HOME: box.home, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.baseURL },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      child.stdin.write('take a nap\n');
      // Type the second line once the tool is running (its start line is printed).
      await eventually(() => stdout.includes('> Bash'), { what: 'the Bash start line' });
      expect(stdout).toContain(`> Bash ${WAIT_FOR_GO}`);
      child.stdin.end('also, be quick\n');
      await eventually(() => stdout.includes('(queued for the running turn: also, be quick)'), { what: 'the typed line being queued' });
      writeFileSync(join(box.cwd, 'go'), '');
      const code = await closed;
      expect(stderr).toBe('');
      expect(code).toBe(0);
      // One turn: the second request carries the tool result and the typed line; no third request.
      expect(server.requests).toHaveLength(2);
      const second = server.requests[1]!.body!;
      expect(allText(second)).toContain('slept');
      expect(allText(second)).toContain('also, be quick');
      expect(stdout).toContain('(queued for the running turn: also, be quick)');
      expect(stdout).not.toContain('> also, be quick');
      // Plain lines only: no cursor movement or colors when stdout is not a terminal.
      expect(stdout).not.toMatch(/\x1b\[/);
      expect(stdout).toMatch(/ok Bash/);
    } finally {
      await server.close();
    }
  });
});

const HELPER_PROMPT = 'You are the HELPER agent.';
const AGENTS = JSON.stringify({ helper: { description: 'Looks things up', prompt: HELPER_PROMPT, tools: ['Read'] } });
const systemOf = (r: MessagesRequest): string => (typeof r.system === 'string' ? r.system : (r.system ?? []).map((b) => b.text).join(''));

describe('interactive, piped, with subagents', () => {
  test('the model calls Agent: the child runs with its own tools and transcript, a line typed meanwhile joins the Agent result', async () => {
    const box = makeSandbox({ 'notes.txt': 'the secret is 7\n' });
    let childCalls = 0;
    let parentCalls = 0;
    const lineQueued = gate();
    const script = (request: MessagesRequest): ScriptedResponse | undefined => {
      if (systemOf(request) === HELPER_PROMPT) {
        childCalls += 1;
        // The child answers only once the line typed meanwhile was queued (not after 600 ms, which
        // a busy machine could outrun), so it is typed while the Agent call runs.
        return childCalls === 1
          ? { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_child_read', name: 'Read', input: { file_path: 'notes.txt' } }] }
          : { kind: 'message', blocks: [{ type: 'text', text: 'CHILD: the secret is 7' }], endAfter: lineQueued.promise };
      }
      parentCalls += 1;
      if (parentCalls === 1) {
        return {
          kind: 'message',
          blocks: [{ type: 'tool_use', id: 'toolu_agent_1', name: 'Agent', input: { description: 'find the secret', prompt: 'Read notes.txt and report the secret.', subagent_type: 'helper' } }],
        };
      }
      return parentCalls === 2 ? { kind: 'message', blocks: [{ type: 'text', text: 'The helper says 7.' }] } : undefined;
    };
    const server = await startScriptedServer({ script });
    try {
      // Default permission mode: the Agent call is allowed by itself, the child's Read by its own policy.
      const child = spawn(process.execPath, [CLI, '--agents', AGENTS], {
        cwd: box.cwd,
        env: { PATH: process.env['PATH'] ?? '', HOME: box.home, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.baseURL },
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const closed = new Promise<number | null>((resolve) => child.on('close', resolve));
      child.stdin.write('what is the secret?\n');
      await eventually(() => stdout.includes('> Agent') && childCalls >= 2, { what: "the Agent call and its child's second request" });
      child.stdin.end('thanks in advance\n');
      await eventually(() => stdout.includes('(queued for the running turn: thanks in advance)'), { what: 'the typed line being queued' });
      lineQueued.open();
      const code = await closed;
      expect(stderr).toBe('');
      expect(code).toBe(0);

      const parents = server.requests.filter((r) => systemOf(r.body!) !== HELPER_PROMPT);
      const children = server.requests.filter((r) => systemOf(r.body!) === HELPER_PROMPT);
      expect(parents[0]!.body!.tools?.map((t) => t.name)).toContain('Agent');
      expect(children).toHaveLength(2);
      expect(children[0]!.body!.tools?.map((t) => t.name)).toEqual(['Read']);
      expect(allText(children[1]!.body!)).toContain('the secret is 7');
      // One parent turn: its second request has the child's answer and the typed line.
      expect(parents).toHaveLength(2);
      expect(allText(parents[1]!.body!)).toContain('CHILD: the secret is 7');
      expect(allText(parents[1]!.body!)).toContain('thanks in advance');
      expect(stdout).toContain('(queued for the running turn: thanks in advance)');
      expect(stdout).toMatch(/ok Agent/);
      expect(stdout).toContain('The helper says 7.');

      // The child's transcript is beside the parent's session, as in print mode.
      const dir = join(box.home, '.rxagent', 'projects', workspaceSlug(box.cwd));
      const sessions = readdirSync(dir).filter((f) => f.endsWith('.jsonl'));
      expect(sessions).toHaveLength(1);
      const subDir = join(dir, sessions[0]!.replace(/\.jsonl$/, ''), 'subagents');
      const childFiles = readdirSync(subDir).filter((f) => f.endsWith('.jsonl'));
      expect(childFiles).toHaveLength(1);
      expect(readFileSync(join(subDir, childFiles[0]!), 'utf8')).toContain('toolu_child_read');
      expect(readFileSync(join(dir, sessions[0]!), 'utf8')).not.toContain('toolu_child_read');
    } finally {
      await server.close();
    }
  });
});

describe('live tool lines', () => {
  test('one line per running tool, in start order, with its elapsed time; finished tools leave', () => {
    const live = createLiveTools();
    expect(live.lines(0)).toEqual([]);
    live.start('a', 'Bash npm test', 1000);
    live.start('b', 'Read a.txt', 1500);
    expect(live.lines(4200)).toEqual(['  … Bash npm test (3.2s)', '  … Read a.txt (2.7s)']);
    live.finish('a');
    expect(live.size).toBe(1);
    expect(live.lines(4200)).toEqual(['  … Read a.txt (2.7s)']);
  });
});
