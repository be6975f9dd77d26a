/**
 * `verbatimPrompts` (each user line sent with `client_composed: true`): the text goes to the
 * model as written, so a prompt that happens to start with a command name is not run as that
 * command; without it the same text is the command. A streamed message may set the flag itself.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { assertBuilt, promptsAfterResults, removeSandboxes, resultOf, runQuery } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const answer = (text: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }] });

test('verbatimPrompts: "/cost" is a prompt for the model, not the /cost report', async () => {
  const verbatim = await runQuery([answer('a prompt about cost')], '/cost', { verbatimPrompts: true });
  expect(resultOf(verbatim.messages)[0]).toMatchObject({ subtype: 'success', result: 'a prompt about cost' });
  expect(verbatim.server.requests).toHaveLength(1);
  expect(JSON.stringify(verbatim.server.requests[0]!.body!.messages)).toContain('/cost');

  const command = await runQuery([answer('never asked')], '/cost', {});
  expect(resultOf(command.messages)[0]!.subtype).toBe('success');
  expect(String((resultOf(command.messages)[0] as { result?: string }).result)).toContain('Total cost');
  expect(command.server.requests).toHaveLength(0);
}, 120_000);

test('a streamed message with client_composed is sent as written; the next one without it is a command', async () => {
  const prompts = promptsAfterResults(['/clear', '/clear']);
  const input = (async function* (): AsyncGenerator<SDKUserMessage> {
    let first = true;
    for await (const m of prompts.input) {
      yield first ? ({ ...m, client_composed: true } as SDKUserMessage) : m;
      first = false;
    }
  })();
  const { messages, server } = await runQuery([answer('about clearing')], input, {}, { onMessage: (m) => void (m.type === 'result' && prompts.resultSeen()) });
  expect(resultOf(messages).map((r) => r.subtype)).toEqual(['success', 'success']);
  expect(server.requests).toHaveLength(1);
  expect(JSON.stringify(server.requests[0]!.body!.messages)).toContain('/clear');
  const inits = messages.filter((m) => m.type === 'system' && m.subtype === 'init');
  // The real /clear started a new session.
  expect(new Set(inits.map((m) => m.session_id)).size).toBe(2);
}, 120_000);
