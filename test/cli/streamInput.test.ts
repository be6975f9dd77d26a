/**
 * `--input-format stream-json` at the protocol level, with a hand-written host: turns, replayed
 * user messages, control requests and their answers, bad lines, a host that never answers,
 * stdin closed mid-turn. Every stdout line is checked against the output schemas.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { outputLineSchema } from '../../src/cli/outputSchemas.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import type { Script } from '../../src/testing/script.js';
import { assertBuilt, makeSandbox, removeSandboxes } from './helpers.js';
import { controlRequest, isResult, responseTo, startStreamHost, userLine, type Line } from './streamHost.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const answer = (text: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }] });
const touch = (name: string) => ({ kind: 'message' as const, blocks: [{ type: 'tool_use' as const, id: 'tu_1', name: 'Bash', input: { command: `touch ${name}` } }] });

async function withHost(script: Script, args: readonly string[], body: (host: ReturnType<typeof startStreamHost>, ctx: { cwd: string }) => Promise<void>, env?: Record<string, string>) {
  const server = await startScriptedServer({ script });
  const sandbox = makeSandbox();
  const host = startStreamHost(args, { ...sandbox, baseURL: server.baseURL, ...(env ? { env } : {}) });
  try {
    await body(host, sandbox);
    const { code } = await host.done;
    return { host, server, code };
  } finally {
    host.end();
    await server.close();
  }
}

/** Control lines are ours (not in the output schemas); every other line must match them. */
function expectValidOutput(lines: readonly Line[]): void {
  for (const line of lines) if (!line.type.startsWith('control_')) outputLineSchema.parse(line);
}

const toolResultText = (body: unknown) => JSON.stringify((body as { messages: unknown[] }).messages.at(-1));

describe('--input-format stream-json', () => {
  test('user lines without initialize: one turn each (init ... result), replayed with --replay-user-messages, clean exit at end of stdin', async () => {
    const { host, server, code } = await withHost([answer('first'), answer('second')], ['--replay-user-messages'], async (host) => {
      host.send(userLine('hello', '11111111-1111-4111-8111-111111111111'));
      await host.waitFor(isResult, 'the first result');
      host.send(userLine('again'));
      await host.waitFor(isResult, 'the second result');
      host.end();
    });
    expect(code).toBe(0);
    expectValidOutput(host.lines);
    const kinds = host.lines.map((l) => (l.type === 'system' ? `system/${String(l['subtype'])}` : l.type));
    expect(kinds).toEqual(['user', 'system/init', 'assistant', 'result', 'user', 'system/init', 'assistant', 'result']);
    expect(host.lines[0]).toMatchObject({ isReplay: true, uuid: '11111111-1111-4111-8111-111111111111' });
    expect(host.lines.filter(isResult).map((l) => l['result'])).toEqual(['first', 'second']);
    expect(JSON.stringify(server.requests[1]?.body?.messages)).toMatch(/hello[\s\S]*first[\s\S]*again/);
  });

  test('initialize is answered with the session facts; set_model, mcp_status; unknown subtypes and bad values get error responses', async () => {
    const { host, server } = await withHost([answer('ok')], [], async (host) => {
      host.send({ type: 'control_request', request_id: 'init-1', request: { subtype: 'initialize', agents: { critic: { description: 'Finds faults', prompt: 'Be critical.' } } } });
      const init = await host.waitFor(responseTo('init-1'), 'the initialize response');
      expect(init['response']).toMatchObject({
        subtype: 'success',
        response: {
          commands: ['clear', 'compact', 'context', 'cost', 'usage'].map((name) => expect.objectContaining(name === 'compact' ? { name, argumentHint: '[instructions for the summary]' } : { name })),
          agents: expect.arrayContaining([{ name: 'critic', description: 'Finds faults' }]),
          output_style: 'default',
          available_output_styles: ['default'],
          claude_code_version: expect.stringMatching(/^\d+\.\d+\.\d+/),
          pid: expect.any(Number),
        },
      });
      host.send({ type: 'control_request', request_id: 'm-1', request: { subtype: 'set_model', model: 'claude-haiku-4-5' } });
      host.send({ type: 'control_request', request_id: 'mcp-1', request: { subtype: 'mcp_status' } });
      host.send({ type: 'control_request', request_id: 'x-1', request: { subtype: 'telepathy' } });
      host.send({ type: 'control_request', request_id: 'p-1', request: { subtype: 'set_permission_mode', mode: 'yolo' } });
      expect((await host.waitFor(responseTo('m-1'), 'set_model'))['response']).toMatchObject({ subtype: 'success' });
      expect((await host.waitFor(responseTo('mcp-1'), 'mcp_status'))['response']).toMatchObject({ subtype: 'success', response: { mcpServers: [] } });
      expect((await host.waitFor(responseTo('x-1'), 'an unknown subtype'))['response']).toMatchObject({ subtype: 'error', error: expect.stringContaining('telepathy') });
      expect((await host.waitFor(responseTo('p-1'), 'set_permission_mode'))['response']).toMatchObject({ subtype: 'error', error: expect.stringContaining('yolo') });
      host.send(userLine('hi'));
      await host.waitFor(isResult, 'the result');
      host.end();
    });
    expect(server.requests[0]?.body?.model).toBe('claude-haiku-4-5');
    expect(JSON.stringify(server.requests[0]?.body?.tools)).toContain('critic');
    expectValidOutput(host.lines);
  });

  test('malformed and unknown lines: a warning line each, nothing lost, the next user line is answered', async () => {
    const { host, code } = await withHost([answer('still here')], [], async (host) => {
      host.sendRaw('this is not json\n');
      host.send({ type: 'telepathy', payload: 1 });
      host.send({ type: 'user', message: { role: 'assistant', content: 'wrong role' } });
      host.send(userLine('hello'));
      await host.waitFor(isResult, 'the result');
      host.end();
    });
    expect(code).toBe(0);
    expectValidOutput(host.lines);
    const warnings = host.lines.filter((l) => l['subtype'] === 'warning').map((l) => String(l['message']));
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/not JSON.*this is not json/);
    expect(warnings[1]).toContain('telepathy');
    expect(warnings[2]).toContain('role');
    expect(host.lines.filter(isResult)[0]).toMatchObject({ result: 'still here' });
  });

  test('a host that never answers can_use_tool: after the bound the call is refused with a clear message, the turn goes on', async () => {
    const { host, server, code } = await withHost(
      [touch('never.txt'), answer('gave up')],
      ['--permission-prompt-tool', 'stdio'],
      async (host) => {
        host.send(userLine('make a file'));
        await host.waitFor(controlRequest('can_use_tool'), 'the permission request');
        const cancel = await host.waitFor((l) => l.type === 'control_cancel_request', 'the cancellation');
        expect(cancel['request_id']).toBeTruthy();
        await host.waitFor(isResult, 'the result');
        host.end();
      },
      { RXAGENT_HOST_TIMEOUT_MS: '400' },
    );
    expect(code).toBe(0);
    expect(toolResultText(server.requests[1]?.body)).toMatch(/did not answer can_use_tool/);
    expect(host.lines.filter(isResult)[0]).toMatchObject({ subtype: 'success', result: 'gave up' });
  });

  test('stdin closed while a permission request waits: the call is refused at once, the turn ends, the process exits', async () => {
    const { host, server, code } = await withHost([touch('late.txt'), answer('ended')], ['--permission-prompt-tool', 'stdio'], async (host, { cwd }) => {
      host.send(userLine('make a file'));
      await host.waitFor(controlRequest('can_use_tool'), 'the permission request');
      host.end();
      await host.waitFor(isResult, 'the result');
      expect(existsSync(join(cwd, 'late.txt'))).toBe(false);
    });
    expect(code).toBe(0);
    expect(toolResultText(server.requests[1]?.body)).toContain('stdin was closed');
    expectValidOutput(host.lines);
  });

  test('a hook callback answered with an error is a non-blocking failure: the call still runs', async () => {
    const { host, code } = await withHost([touch('made.txt'), answer('done')], ['--permission-mode', 'bypassPermissions'], async (host, { cwd }) => {
      host.send({ type: 'control_request', request_id: 'i', request: { subtype: 'initialize', hooks: { PreToolUse: [{ matcher: 'Bash', hookCallbackIds: ['h1'] }] } } });
      await host.waitFor(responseTo('i'), 'initialize');
      host.send(userLine('make it'));
      const hook = await host.waitFor(controlRequest('hook_callback'), 'the hook callback');
      expect(hook['request']).toMatchObject({ callback_id: 'h1', input: { hook_event_name: 'PreToolUse', tool_name: 'Bash' }, tool_use_id: 'tu_1' });
      host.send({ type: 'control_response', response: { subtype: 'error', request_id: hook['request_id'], error: 'callback crashed' } });
      await host.waitFor(isResult, 'the result');
      expect(existsSync(join(cwd, 'made.txt'))).toBe(true);
      host.end();
    });
    expect(code).toBe(0);
    expect(host.lines.filter(isResult)[0]).toMatchObject({ subtype: 'success' });
  });
});
