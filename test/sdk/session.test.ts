/**
 * The real Claude Agent SDK drives rxagent over a whole session: streaming input over several
 * turns in one process, setPermissionMode between turns, interrupt() then a next message,
 * abortController, resume, maxTurns, system prompts, partial messages, the thinking budget.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { makeSandbox } from '../cli/helpers.js';
import { assertBuilt, promptsAfterResults, removeSandboxes, resultOf, runQuery } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const answer = (text: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }] });
const promptsSent = (body: { messages: Array<{ role: string; content: unknown }> } | undefined) =>
  (body?.messages ?? []).filter((m) => m.role === 'user').map((m) => JSON.stringify(m.content));

/** A hold the test releases: the scripted response does not end before it. */
function hold(): { promise: Promise<void>; release: () => void } {
  let release = () => {};
  const promise = new Promise<void>((resolve) => (release = resolve));
  return { promise, release };
}

describe('an Agent SDK session on rxagent', () => {
  test('streaming input: three user messages, three turns in one process, each with the conversation so far', async () => {
    const prompts = promptsAfterResults(['first question', 'second question', 'third question']);
    const { messages, server } = await runQuery([answer('one'), answer('two'), answer('three')], prompts.input, {}, {
      onMessage: (m) => void (m.type === 'result' && prompts.resultSeen()),
    });
    const results = resultOf(messages);
    expect(results.map((r) => r.type === 'result' && r.subtype === 'success' && r.result)).toEqual(['one', 'two', 'three']);
    // One process: one session id throughout, and an init line per turn.
    expect(new Set(messages.map((m) => m.session_id)).size).toBe(1);
    expect(messages.filter((m) => m.type === 'system' && m.subtype === 'init')).toHaveLength(3);
    expect(server.requests).toHaveLength(3);
    const third = promptsSent(server.requests[2]?.body);
    expect(third.join('\n')).toMatch(/first question[\s\S]*second question[\s\S]*third question/);
  });

  test('setPermissionMode between turns: the Write refused in default mode goes through in acceptEdits', async () => {
    const sandbox = makeSandbox();
    const write = (name: string) => ({ kind: 'message' as const, blocks: [{ type: 'tool_use' as const, name: 'Write', input: { file_path: join(sandbox.cwd, name), content: 'x' } }] });
    const prompts = promptsAfterResults(['write a', 'write b']);
    let results = 0;
    const { messages } = await runQuery([write('a.txt'), answer('could not'), write('b.txt'), answer('done')], prompts.input, {}, {
      sandbox,
      onMessage: async (m, q) => {
        if (m.type !== 'result') return;
        if (++results === 1) await q.setPermissionMode('acceptEdits');
        prompts.resultSeen();
      },
    });
    expect(existsSync(join(sandbox.cwd, 'a.txt'))).toBe(false);
    expect(existsSync(join(sandbox.cwd, 'b.txt'))).toBe(true);
    const inits = messages.filter((m) => m.type === 'system' && m.subtype === 'init');
    expect(inits.map((m) => m.type === 'system' && m.subtype === 'init' && m.permissionMode)).toEqual(['default', 'acceptEdits']);
  });

  test('interrupt() ends the running turn; the next message is answered in the same process', async () => {
    const held = hold();
    const prompts = promptsAfterResults(['long task', 'next question']);
    let interrupted = false;
    try {
      const { messages, server } = await runQuery(
        [{ kind: 'message', blocks: [{ type: 'text', text: 'working on it' }], endAfter: held.promise }, answer('here is the answer')],
        prompts.input,
        {},
        {
          onMessage: async (m, q) => {
            if (m.type === 'assistant' && !interrupted) {
              interrupted = true;
              await q.interrupt();
            }
            if (m.type === 'result') prompts.resultSeen();
          },
        },
      );
      const results = resultOf(messages);
      expect(results).toHaveLength(2);
      expect(results[0]).toMatchObject({ is_error: true, subtype: 'error_during_execution' });
      expect(results[1]).toMatchObject({ subtype: 'success', result: 'here is the answer' });
      expect(server.requests).toHaveLength(2);
      expect(promptsSent(server.requests[1]?.body).join('\n')).toContain('next question');
    } finally {
      held.release();
    }
  });

  test('abortController: aborting mid-response ends the query without a result and without hanging', async () => {
    const held = hold();
    const controller = new AbortController();
    try {
      const { messages, error } = await runQuery(
        [{ kind: 'message', blocks: [{ type: 'text', text: 'partial' }], endAfter: held.promise }],
        'go',
        { abortController: controller },
        {
          onMessage: (m) => void (m.type === 'assistant' && controller.abort()),
          // The engine went away with its request: the connection closes before the response ends.
          afterQuery: (server) => server.waitForClientClose(0, 15_000),
        },
      );
      expect(resultOf(messages)).toHaveLength(0);
      expect(error?.message).toMatch(/aborted/);
    } finally {
      held.release();
    }
  });

  test('resume: a second query continues the first session with its whole conversation', async () => {
    const sandbox = makeSandbox();
    const first = await runQuery([answer('remembered')], 'remember the word teapot', {}, { sandbox });
    const sessionId = resultOf(first.messages)[0]?.session_id;
    expect(sessionId).toBeTruthy();
    const second = await runQuery([answer('teapot')], 'what was the word?', { resume: sessionId as string }, { sandbox });
    const sent = JSON.stringify(second.server.requests[0]?.body?.messages);
    expect(sent).toMatch(/remember the word teapot[\s\S]*remembered[\s\S]*what was the word\?/);
    expect(resultOf(second.messages)[0]).toMatchObject({ subtype: 'success', session_id: sessionId });
  });

  test('maxTurns: a tool call in the last allowed turn ends with error_max_turns', async () => {
    const { messages, server, error } = await runQuery(
      [{ kind: 'message', blocks: [{ type: 'tool_use', name: 'Glob', input: { pattern: '*' } }] }, answer('unreached')],
      'look around',
      { maxTurns: 1 },
    );
    expect(server.requests).toHaveLength(1);
    expect(resultOf(messages)[0]).toMatchObject({ subtype: 'error_max_turns', is_error: true, num_turns: 1 });
    expect(error?.message).toMatch(/error result/);
  });

  test('systemPrompt: a string replaces the system prompt; preset + append keeps ours and adds the text', async () => {
    const replaced = await runQuery([answer('ok')], 'hi', { systemPrompt: 'You are a terse test bot.' });
    const system = JSON.stringify(replaced.server.requests[0]?.body?.system);
    expect(system).toContain('You are a terse test bot.');
    expect(system).not.toContain('rxagent');
    const appended = await runQuery([answer('ok')], 'hi', { systemPrompt: { type: 'preset', preset: 'claude_code', append: 'Always answer in French.' } });
    const both = JSON.stringify(appended.server.requests[0]?.body?.system);
    expect(both).toMatch(/rxagent[\s\S]*Always answer in French\./);
  });

  test('includePartialMessages: stream events arrive before the assistant line of their block', async () => {
    const { messages } = await runQuery([answer('streamed text')], 'hi', { includePartialMessages: true });
    const firstEvent = messages.findIndex((m) => m.type === 'stream_event');
    const firstAssistant = messages.findIndex((m) => m.type === 'assistant');
    expect(firstEvent).toBeGreaterThan(-1);
    expect(firstEvent).toBeLessThan(firstAssistant);
    const deltas = messages.flatMap((m) => (m.type === 'stream_event' && m.event.type === 'content_block_delta' ? [m.event] : []));
    expect(JSON.stringify(deltas)).toContain('streamed text');
  });

  test('thinking with a budget: a budget model gets that budget; an adaptive model thinks adaptively; disabled sends none', async () => {
    const budget = await runQuery([answer('ok')], 'think', { model: 'claude-haiku-4-5', thinking: { type: 'enabled', budgetTokens: 2048 } });
    expect(budget.server.requests[0]?.body?.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    const adaptive = await runQuery([answer('ok')], 'think', { thinking: { type: 'adaptive' } });
    expect(adaptive.server.requests[0]?.body?.thinking).toEqual({ type: 'adaptive' });
    const off = await runQuery([answer('ok')], 'think', { thinking: { type: 'disabled' } });
    expect(off.server.requests[0]?.body?.thinking).toBeUndefined();
  });
});
