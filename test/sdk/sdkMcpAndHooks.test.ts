/**
 * The real Claude Agent SDK with in-process MCP servers (`createSdkMcpServer`: every JSON-RPC
 * message crosses the control protocol as `mcp_message`) and the session-level hook events
 * registered as SDK callbacks (SessionStart, PermissionRequest, Notification). SessionEnd fires
 * as the engine closes, after the SDK closed its stdin, so it is tested as a settings hook (test/cli).
 */
import { createSdkMcpServer, tool, type HookCallbackMatcher, type HookEvent } from '@anthropic-ai/claude-agent-sdk';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { z } from 'zod';
import { makeSandbox } from '../cli/helpers.js';
import { assertBuilt, removeSandboxes, resultOf, runQuery } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const answer = (text: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }] });
const call = (name: string, input: Record<string, unknown>) => ({ kind: 'message' as const, blocks: [{ type: 'tool_use' as const, name, input }] });
const lastToolResult = (body: { messages: Array<{ role: string; content: unknown }> } | undefined) =>
  JSON.stringify((body?.messages ?? []).at(-1)?.content);

function calculator(seen: Array<{ a: number; b: number }>) {
  return createSdkMcpServer({
    name: 'calc',
    version: '1.0.0',
    tools: [
      tool('add', 'Adds two numbers', { a: z.number(), b: z.number() }, async (args) => {
        seen.push(args);
        return { content: [{ type: 'text', text: `sum=${args.a + args.b}` }] };
      }),
      tool('fail', 'Always fails', {}, async () => ({ content: [{ type: 'text', text: 'no luck' }], isError: true })),
    ],
  });
}

describe('SDK MCP servers on rxagent', () => {
  test('createSdkMcpServer: offered as mcp__calc__add, the call runs in the host process, its result reaches the model', async () => {
    const seen: Array<{ a: number; b: number }> = [];
    const { messages, server } = await runQuery([call('mcp__calc__add', { a: 2, b: 40 }), call('mcp__calc__fail', {}), answer('42')], 'add 2 and 40', {
      mcpServers: { calc: calculator(seen) },
      allowedTools: ['mcp__calc'],
    });
    expect(seen).toEqual([{ a: 2, b: 40 }]);
    const offered = (server.requests[0]?.body?.tools ?? []).map((t) => t.name);
    expect(offered).toEqual(expect.arrayContaining(['mcp__calc__add', 'mcp__calc__fail']));
    expect(lastToolResult(server.requests[1]?.body)).toContain('sum=42');
    const failed = (server.requests[2]?.body?.messages.at(-1)?.content as ReadonlyArray<{ is_error?: boolean; content?: unknown }>)[0];
    expect(failed?.is_error).toBe(true);
    expect(JSON.stringify(failed?.content)).toContain('no luck');
    const init = messages.find((m) => m.type === 'system' && m.subtype === 'init');
    expect(init?.type === 'system' && init.subtype === 'init' && init.mcp_servers).toEqual([{ name: 'calc', status: 'connected' }]);
    expect(init?.type === 'system' && init.subtype === 'init' && init.tools).toEqual(expect.arrayContaining(['mcp__calc__add']));
    expect(resultOf(messages)[0]).toMatchObject({ subtype: 'success', result: '42' });
  });

  test('an SDK MCP tool asks in default mode: canUseTool is asked for it and a deny keeps the host tool from running', async () => {
    const seen: Array<{ a: number; b: number }> = [];
    const asked: string[] = [];
    const { server } = await runQuery([call('mcp__calc__add', { a: 1, b: 1 }), answer('ok')], 'add', {
      mcpServers: { calc: calculator(seen) },
      canUseTool: async (name) => {
        asked.push(name);
        return { behavior: 'deny', message: 'not now' };
      },
    });
    expect(asked).toEqual(['mcp__calc__add']);
    expect(seen).toEqual([]);
    expect(lastToolResult(server.requests[1]?.body)).toContain('not now');
  });
});

describe('session hook events as SDK callbacks', () => {
  test('SessionStart context reaches the model; PermissionRequest answers instead of the user; Notification fires before a question', async () => {
    const sandbox = makeSandbox();
    const fired: Array<{ event: string; input: Record<string, unknown> }> = [];
    const record = (event: string, output: Record<string, unknown> = {}): HookCallbackMatcher => ({
      hooks: [
        async (input) => {
          fired.push({ event, input: input as unknown as Record<string, unknown> });
          return output;
        },
      ],
    });
    const hooks: Partial<Record<HookEvent, HookCallbackMatcher[]>> = {
      SessionStart: [record('SessionStart', { hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: 'CONTEXT FROM THE HOST HOOK' } })],
      PermissionRequest: [
        { matcher: 'Write', ...record('PermissionRequest', { hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } }) },
      ],
      Notification: [record('Notification')],
    };
    const asked: string[] = [];
    const write = call('Write', { file_path: join(sandbox.cwd, 'allowed.txt'), content: 'x' });
    const edit = call('Bash', { command: 'touch asked.txt' });
    const { server } = await runQuery([write, edit, answer('done')], 'write', {
      hooks,
      canUseTool: async (name) => {
        asked.push(name);
        return { behavior: 'deny', message: 'the person said no' };
      },
    }, { sandbox });
    expect(JSON.stringify(server.requests[0]?.body?.system)).toContain('CONTEXT FROM THE HOST HOOK');
    expect(existsSync(join(sandbox.cwd, 'allowed.txt'))).toBe(true);
    // The hook only matches Write: the Bash call goes to the person, with a Notification first.
    expect(asked).toEqual(['Bash']);
    expect(existsSync(join(sandbox.cwd, 'asked.txt'))).toBe(false);
    const events = fired.map((f) => f.event);
    expect(events.filter((e) => e === 'PermissionRequest')).toHaveLength(1);
    expect(events.filter((e) => e === 'Notification')).toHaveLength(1);
    expect(events[0]).toBe('SessionStart');
    expect(fired[0]?.input).toMatchObject({ hook_event_name: 'SessionStart', source: 'startup' });
    expect(fired.find((f) => f.event === 'PermissionRequest')?.input).toMatchObject({ tool_name: 'Write', tool_input: { content: 'x' } });
    expect(fired.find((f) => f.event === 'Notification')?.input).toMatchObject({ notification_type: 'permission_prompt' });
  });
});
