/**
 * The interactive view with piped stdin (not a TTY): a line typed while a turn runs is handed to
 * that turn (queued, absorbed after the current tool batch, seen in its next request) instead of
 * waiting for a turn of its own; piped output has plain tool start/finish lines, no live lines.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { createLiveTools } from '../../src/cli/interactive/liveTools.js';
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
