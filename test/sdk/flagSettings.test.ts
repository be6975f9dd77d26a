/**
 * Settings control through the real SDK: `applyFlagSettings` changes the model of the next
 * turn and the flag layer's permission rules (a bare deny name takes the tool out of the next
 * request's offer and refuses a call made anyway; `null` clears it), and refuses, applying nothing, a key rxagent cannot apply mid-session; `updateSettings`
 * is refused with the reason.
 */
import type { Query, SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { assertBuilt, removeSandboxes, resultOf, resultsById, runQuery, userMessage } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const answer = (text: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }] });
const glob = (id: string) => ({ kind: 'message' as const, blocks: [{ type: 'tool_use' as const, id, name: 'Glob', input: { pattern: '*' } }] });

test('applyFlagSettings: model and permission rules apply from the next turn; an unknown key is refused whole; updateSettings is refused', async () => {
  let resolveQuery!: (q: Query) => void;
  const queryReady = new Promise<Query>((resolve) => (resolveQuery = resolve));
  let resultSeen!: () => void;
  const nextResult = () => new Promise<void>((resolve) => (resultSeen = resolve));
  const refusals: Record<string, string> = {};
  const refused = (p: Promise<unknown>) => p.then(() => 'resolved', (e: Error) => e.message);
  const input = (async function* (): AsyncGenerator<SDKUserMessage> {
    const q = await queryReady;
    await q.applyFlagSettings({ model: 'claude-haiku-4-5', permissions: { deny: ['Glob'] } });
    let turn = nextResult();
    yield userMessage('look');
    await turn;
    refusals['mixed'] = await refused(q.applyFlagSettings({ model: 'claude-opus-4-5', outputStyle: 'explanatory' }));
    refusals['badRule'] = await refused(q.applyFlagSettings({ permissions: { allow: ['Bash('] } }));
    refusals['update'] = await refused(q.updateSettings('localSettings', { outputStyle: 'explanatory' }));
    await q.applyFlagSettings({ model: null, permissions: null });
    turn = nextResult();
    yield userMessage('look again');
    await turn;
  })();
  const { messages, server } = await runQuery([glob('tu_1'), answer('denied'), glob('tu_2'), answer('found')], input, { model: 'claude-sonnet-4-5', permissionMode: 'dontAsk' }, {
    withQuery: resolveQuery,
    onMessage: (m) => void (m.type === 'result' && resultSeen()),
  });
  expect(resultOf(messages).map((r) => r.subtype)).toEqual(['success', 'success']);
  const models = server.requests.map((r) => (r.body as { model: string }).model);
  // The refused call changed nothing: turn 2 runs on the session's model, not opus.
  expect(models).toEqual(['claude-haiku-4-5', 'claude-haiku-4-5', 'claude-sonnet-4-5', 'claude-sonnet-4-5']);
  const results = resultsById(messages);
  // A bare deny name takes the tool out of the offer (as Claude Code does); a call made anyway is refused.
  const offered = server.requests.map((r) => (r.body!.tools ?? []).map((t) => t.name));
  expect(offered[0]).not.toContain('Glob');
  expect(offered[0]).toContain('Read');
  expect(offered[2]).toContain('Glob');
  expect(JSON.stringify(results.get('tu_1')?.message.content)).toContain('"is_error":true');
  expect(JSON.stringify(results.get('tu_2')?.message.content)).not.toMatch(/denied|not allowed/i);
  expect(refusals['mixed']).toMatch(/outputStyle/);
  expect(refusals['badRule']).toMatch(/permissions\.allow/);
  expect(refusals['update']).toMatch(/not applicable/);
}, 120_000);
