/**
 * The real Claude Agent SDK drives rxagent: a string prompt, canUseTool (allow with a rewritten
 * input, deny), PreToolUse hook callbacks (deny, rewrite), allowed/disallowed tools.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { assertBuilt, removeSandboxes, resultOf, runQuery } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const touch = (name: string) => ({ kind: 'message' as const, blocks: [{ type: 'tool_use' as const, id: 'tu_1', name: 'Bash', input: { command: `touch ${name}` } }] });
const answer = (text: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }] });
/** The tool_result the model got for the first call, from the second request. */
function firstToolResult(body: MessagesRequest | undefined): { content: unknown; is_error?: boolean } {
  const last = body?.messages.at(-1);
  const block = Array.isArray(last?.content) ? last.content.find((b) => b.type === 'tool_result') : undefined;
  if (!block || block.type !== 'tool_result') throw new Error('no tool_result in the request');
  return { content: block.content, ...(block.is_error === undefined ? {} : { is_error: block.is_error }) };
}
const textOf = (content: unknown) => (typeof content === 'string' ? content : JSON.stringify(content));

describe('the Agent SDK runs on rxagent', () => {
  test('a string prompt: init, the assistant line, one success result with the answer', async () => {
    const { messages, server } = await runQuery([answer('Hello from the script')], 'Say hello', {});
    const init = messages[0];
    expect(init).toMatchObject({ type: 'system', subtype: 'init', permissionMode: 'default' });
    expect(init?.type === 'system' && init.subtype === 'init' && init.tools).toContain('Read');
    expect(messages.some((m) => m.type === 'assistant')).toBe(true);
    const [result] = resultOf(messages);
    expect(result).toMatchObject({ subtype: 'success', is_error: false, result: 'Hello from the script', num_turns: 1 });
    expect(server.requests).toHaveLength(1);
    expect(JSON.stringify(server.requests[0]?.body?.messages)).toContain('Say hello');
  });

  test('canUseTool: allow with updatedInput runs the rewritten call; the host saw the suggestions', async () => {
    const asked: Array<{ name: string; input: unknown; suggestions: unknown }> = [];
    const { messages, cwd } = await runQuery([touch('asked.txt'), answer('ok')], 'make a file', {
      canUseTool: async (name, input, opts) => {
        asked.push({ name, input, suggestions: opts.suggestions });
        return { behavior: 'allow', updatedInput: { command: 'touch rewritten.txt' } };
      },
    });
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ name: 'Bash', input: { command: 'touch asked.txt' } });
    expect(asked[0]?.suggestions).toEqual([
      { type: 'addRules', rules: [{ toolName: 'Bash', ruleContent: 'touch asked.txt' }], behavior: 'allow', destination: 'session' },
    ]);
    expect(existsSync(join(cwd, 'rewritten.txt'))).toBe(true);
    expect(existsSync(join(cwd, 'asked.txt'))).toBe(false);
    expect(resultOf(messages)[0]).toMatchObject({ subtype: 'success' });
  });

  test('canUseTool: deny sends its message to the model as the error result; the tool never runs', async () => {
    const { messages, cwd, server } = await runQuery([touch('denied.txt'), answer('understood')], 'make a file', {
      canUseTool: async () => ({ behavior: 'deny', message: 'Not in this repository, please.' }),
    });
    expect(existsSync(join(cwd, 'denied.txt'))).toBe(false);
    const toolResult = firstToolResult(server.requests[1]?.body);
    expect(toolResult.is_error).toBe(true);
    expect(textOf(toolResult.content)).toContain('Not in this repository, please.');
    const [result] = resultOf(messages);
    expect(result).toMatchObject({ subtype: 'success', result: 'understood' });
    expect(result?.permission_denials).toEqual([{ tool_name: 'Bash', tool_use_id: 'tu_1', tool_input: { command: 'touch denied.txt' } }]);
  });

  test('canUseTool: deny with interrupt ends the turn as an interrupt', async () => {
    const { messages, cwd, server, error } = await runQuery([touch('x.txt'), answer('never asked for')], 'make a file', {
      canUseTool: async () => ({ behavior: 'deny', message: 'stop here', interrupt: true }),
    });
    expect(existsSync(join(cwd, 'x.txt'))).toBe(false);
    expect(server.requests).toHaveLength(1);
    expect(resultOf(messages)[0]).toMatchObject({ subtype: 'error_during_execution', is_error: true });
    // The engine exits 1 after an error result; the SDK reports that with the result's text.
    expect(error?.message).toMatch(/error result: Interrupted/);
  });

  test('PreToolUse hook callbacks: a deny refuses the call with its reason; the hook saw the call', async () => {
    const seen: unknown[] = [];
    const { cwd, server } = await runQuery([touch('hooked.txt'), answer('ok')], 'make a file', {
      permissionMode: 'bypassPermissions',
      hooks: {
        PreToolUse: [
          {
            matcher: 'Bash',
            hooks: [
              async (input) => {
                seen.push(input);
                return { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'hooks say no' } };
              },
            ],
          },
        ],
      },
    });
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_input: { command: 'touch hooked.txt' }, tool_use_id: 'tu_1', cwd });
    expect(existsSync(join(cwd, 'hooked.txt'))).toBe(false);
    expect(textOf(firstToolResult(server.requests[1]?.body).content)).toContain('hooks say no');
  });

  test('PreToolUse hook callbacks: updatedInput rewrites the call; a matcher for another tool does not fire', async () => {
    let otherFired = false;
    const { cwd } = await runQuery([touch('original.txt'), answer('ok')], 'make a file', {
      permissionMode: 'bypassPermissions',
      hooks: {
        PreToolUse: [
          { matcher: 'Read', hooks: [async () => ((otherFired = true), {})] },
          {
            matcher: 'Bash',
            hooks: [async () => ({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', updatedInput: { command: 'touch from-hook.txt' } } })],
          },
        ],
      },
    });
    expect(otherFired).toBe(false);
    expect(existsSync(join(cwd, 'from-hook.txt'))).toBe(true);
    expect(existsSync(join(cwd, 'original.txt'))).toBe(false);
  });

  test('disallowedTools: a bare name is not offered at all; allowedTools lets a call through without canUseTool', async () => {
    let asked = 0;
    const { server, cwd, messages } = await runQuery([touch('allowed.txt'), answer('ok')], 'go', {
      disallowedTools: ['Write'],
      allowedTools: ['Bash(touch allowed.txt)'],
      canUseTool: async () => ((asked += 1), { behavior: 'deny', message: 'no' }),
    });
    const offered = (server.requests[0]?.body?.tools ?? []).map((t) => (t as { name: string }).name);
    expect(offered).not.toContain('Write');
    expect(offered).toContain('Bash');
    const init = messages[0];
    expect(init?.type === 'system' && init.subtype === 'init' && init.tools).not.toContain('Write');
    expect(asked).toBe(0);
    expect(existsSync(join(cwd, 'allowed.txt'))).toBe(true);
  });
});
