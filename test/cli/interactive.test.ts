/**
 * The interactive view with piped stdin (not a TTY): a line typed while a turn runs is handed to
 * that turn (queued, absorbed after the current tool batch, seen in its next request) instead of
 * waiting for a turn of its own; piped output has plain tool start/finish lines, no live lines.
 * The Agent tool is offered there as in print mode (child policy and transcripts included).
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { createLiveTools } from '../../src/cli/interactive/liveTools.js';
import { workspaceSlug } from '../../src/session/paths.js';
import { assertBuilt, CLI, makeSandbox, removeSandboxes } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const allText = (r: MessagesRequest) => JSON.stringify(r.messages);

describe('interactive, piped', () => {
  test('a line typed during a tool call reaches the same turn next to the tool result', async () => {
    const box = makeSandbox();
    const script: ScriptedResponse[] = [
      { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_sleep', name: 'Bash', input: { command: 'sleep 1; echo slept' } }] },
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
      for (let i = 0; i < 200 && !stdout.includes('> Bash'); i++) await new Promise((r) => setTimeout(r, 25));
      expect(stdout).toContain('> Bash sleep 1; echo slept');
      child.stdin.end('also, be quick\n');
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
    const script = (request: MessagesRequest): ScriptedResponse | undefined => {
      if (systemOf(request) === HELPER_PROMPT) {
        childCalls += 1;
        // The child's answer is slow, so a line can be typed while the Agent call runs.
        return childCalls === 1
          ? { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_child_read', name: 'Read', input: { file_path: 'notes.txt' } }] }
          : { kind: 'message', blocks: [{ type: 'text', text: 'CHILD: the secret is 7' }], endDelayMs: 600 };
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
      for (let i = 0; i < 200 && !(stdout.includes('> Agent') && childCalls >= 2); i++) await new Promise((r) => setTimeout(r, 25));
      expect(stdout).toContain('> Agent');
      child.stdin.end('thanks in advance\n');
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
