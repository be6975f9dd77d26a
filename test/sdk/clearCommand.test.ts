/**
 * `/clear` through the real Agent SDK (its documented slash command): the conversation starts
 * over in a fresh session with a new id, as in Claude Code; nothing is sent to the model; the
 * host sees a `conversation_reset` naming both sessions; SessionEnd (reason `clear`) and
 * SessionStart (source `clear`) hook callbacks run; what the host changed during the process (the
 * permission mode) carries over; the cleared session stays resumable.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { SDKMessage } from '@anthropic-ai/claude-agent-sdk';
import { makeSandbox, runCli } from '../cli/helpers.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { assertBuilt, promptsAfterResults, removeSandboxes, resultOf, runQuery } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const answer = (text: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }] });
const inits = (messages: readonly SDKMessage[]) => messages.filter((m): m is Extract<SDKMessage, { type: 'system'; subtype: 'init' }> => m.type === 'system' && m.subtype === 'init');

test('/clear between turns: a conversation_reset, a new session id, the next turn without the old history, hooks told clear', async () => {
  const sandbox = makeSandbox();
  const prompts = promptsAfterResults(['the number is 42', '/clear', 'what was the number?']);
  const hookInputs: Array<Record<string, unknown>> = [];
  let lastEnd: () => void = () => {};
  /** The SessionEnd at exit: the host's callback runs after the SDK closed stdin. */
  const exited = new Promise<void>((resolve) => (lastEnd = resolve));
  const record = async (input: unknown) => {
    hookInputs.push(input as Record<string, unknown>);
    if (hookInputs.length === 4) lastEnd();
    return {};
  };
  let resultsSeen = 0;
  const { messages, server } = await runQuery([answer('noted'), answer('I do not know')], prompts.input, {
    hooks: { SessionStart: [{ hooks: [record] }], SessionEnd: [{ hooks: [record] }] },
  }, {
    sandbox,
    onMessage: async (m, q) => {
      if (m.type !== 'result') return;
      // Before the /clear: a mode the host chose must survive it.
      if (++resultsSeen === 1) await q.setPermissionMode('acceptEdits');
      prompts.resultSeen();
    },
  });
  const results = resultOf(messages);
  expect(results.map((r) => [r.subtype, r.subtype === 'success' ? r.result : undefined])).toEqual([['success', 'noted'], ['success', ''], ['success', 'I do not know']]);
  // The /clear sent nothing: two model requests, the second with only the new prompt.
  expect(server.requests).toHaveLength(2);
  const second = JSON.stringify(server.requests[1]!.body!.messages);
  expect(second).toContain('what was the number?');
  expect(second).not.toContain('42');

  const oldId = results[0]!.session_id;
  const reset = messages.find((m) => m.type === 'conversation_reset');
  expect(reset).toMatchObject({ type: 'conversation_reset', session_id: oldId, trigger: 'clear', timestamp: expect.any(String) });
  const newId = reset?.type === 'conversation_reset' ? reset.new_conversation_id : undefined;
  expect(newId).toMatch(/^[0-9a-f-]{36}$/);
  expect(newId).not.toBe(oldId);
  // The reset comes before the new session's init; the clear's result and every later line carry the new id.
  const turnInits = inits(messages);
  expect(turnInits.map((i) => i.session_id)).toEqual([oldId, newId, newId]);
  expect(messages.indexOf(reset!)).toBeLessThan(messages.indexOf(turnInits[1]!));
  expect([results[1]!.session_id, results[2]!.session_id]).toEqual([newId, newId]);
  expect(turnInits[1]!.permissionMode).toBe('acceptEdits');
  expect(turnInits[0]!.slash_commands).toEqual(expect.arrayContaining(['clear', 'compact']));

  await exited;
  expect(hookInputs.map((h) => [h['hook_event_name'], h['source'] ?? h['reason'], h['session_id']])).toEqual([
    ['SessionStart', 'startup', oldId],
    ['SessionEnd', 'clear', oldId],
    ['SessionStart', 'clear', newId],
    ['SessionEnd', 'other', newId],
  ]);

  // The cleared session is still there: resuming it sends its conversation.
  const resumed = await runQuery([answer('42')], 'and now?', { resume: oldId }, { sandbox });
  expect(resultOf(resumed.messages)[0]).toMatchObject({ subtype: 'success', result: '42' });
  expect(JSON.stringify(resumed.server.requests[0]!.body!.messages)).toContain('the number is 42');
}, 180_000);

test('a prompt that only mentions /clear goes to the model; -p "/clear" sends nothing and succeeds with an empty result', async () => {
  const { messages, server } = await runQuery([answer('it clears')], 'what does /clear do?', {});
  expect(resultOf(messages)[0]).toMatchObject({ subtype: 'success', result: 'it clears' });
  expect(JSON.stringify(server.requests[0]!.body!.messages)).toContain('what does /clear do?');

  const sandbox = makeSandbox();
  const quiet = await startScriptedServer({ script: [answer('never sent')] });
  try {
    const run = await runCli(['-p', '/clear', '--output-format', 'json'], { ...sandbox, baseURL: quiet.baseURL });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ type: 'result', subtype: 'success', is_error: false, result: '', num_turns: 0 });
    expect(quiet.requests).toHaveLength(0);
  } finally {
    await quiet.close();
  }
});
