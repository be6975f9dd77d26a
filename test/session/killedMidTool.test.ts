/**
 * A run killed (SIGKILL) while the first tool of its first response runs loses nothing it can
 * keep: the response that asked for the tool is already in the transcript (written the moment it
 * was complete, src/loop/earlyRecord.ts), so `--resume` sends the call with a synthetic result
 * saying the session ended before it returned, and the request is one the API accepts.
 * Before the early write, the transcript held only the prompt: the call had run, and the
 * resumed conversation did not know.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { validateMessagesRequest } from '../../src/testing/validateRequest.js';
import { SESSION_ENDED_TOOL_RESULT } from '../../src/session/rebuild.js';
import { workspaceSlug } from '../../src/session/paths.js';
import { assertBuilt, CLI, makeSandbox, removeSandboxes, runAgainst } from '../cli/helpers.js';
import { eventually } from '../eventually.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const SESSION = '5e551000-0000-4000-8000-00000000d1ed';
const TOOL_ID = 'toolu_killed_1';

const longTool: ScriptedResponse = {
  kind: 'message',
  blocks: [
    { type: 'text', text: 'Running it.' },
    // The marker says the tool started; the sleep keeps it running until the kill.
    { type: 'tool_use', id: TOOL_ID, name: 'Bash', input: { command: 'touch started.marker && sleep 300' } },
  ],
};
const answer: ScriptedResponse = { kind: 'message', blocks: [{ type: 'text', text: 'Picked up again.' }] };

describe('SIGKILL during the first tool of a run', () => {
  test('the tool-use response is on disk while the tool runs; --resume answers it with one synthetic result', async () => {
    const box = makeSandbox();
    const transcript = join(box.home, '.rxagent', 'projects', workspaceSlug(box.cwd), `${SESSION}.jsonl`);
    const server = await startScriptedServer({ script: [longTool] });
    const child = spawn(process.execPath, [CLI, '-p', 'start the job', '--session-id', SESSION, '--allowedTools', 'Bash', '--output-format', 'stream-json', '--verbose'], {
      cwd: box.cwd,
      env: { PATH: process.env['PATH'] ?? '', HOME: box.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.baseURL },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    try {
      await eventually(() => existsSync(join(box.cwd, 'started.marker')), { timeoutMs: 60_000, what: `the tool starting (stderr: ${stderr})` });
      // Waiting for the effect itself: the record of the response that asked for the tool.
      await eventually(() => existsSync(transcript) && readFileSync(transcript, 'utf8').includes(TOOL_ID), { timeoutMs: 60_000, what: 'the tool-use record' });
      child.kill('SIGKILL');
      expect(await exited).toBe('SIGKILL');
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await server.close();
    }

    const lines = readFileSync(transcript, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; message?: { content?: unknown } });
    expect(lines.filter((l) => l.type === 'assistant')).toHaveLength(1);

    const resumed = await runAgainst([answer], ['-p', 'what happened?', '--resume', SESSION, '--output-format', 'json'], box);
    expect(resumed.code).toBe(0);
    const body = resumed.server.requests[0]!.body!;
    expect(validateMessagesRequest(body)).toEqual([]);
    const messages = body.messages;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const results = (messages[2]!.content as readonly { type: string; tool_use_id?: string; is_error?: boolean; content?: unknown }[]).filter((b) => b.type === 'tool_result');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ tool_use_id: TOOL_ID, is_error: true });
    expect(JSON.stringify(results[0]!.content)).toContain(SESSION_ENDED_TOOL_RESULT);
    expect(JSON.stringify(messages[2])).toContain('what happened?');
  });
});
