/**
 * A request body leaves as one buffer when small and as its cached chunks when large
 * (fromMessagesResponse.ts): either way the server must receive exactly the JSON of the request,
 * with a content-length that matches it.
 */
import { describe, expect, it } from 'vitest';
import type { MessageParam } from '../../src/protocol/content.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { Script } from '../../src/testing/script.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { createMessagesClient } from '../../src/transport/createMessagesClient.js';
import { run, useOpenHandles } from './helpers.js';

const open = useOpenHandles();
const reply: Script = Array.from({ length: 3 }, () => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text: 'ok' }] }));

/** A conversation of `turns` exchanges whose user turns carry `size` characters of mixed-width text. */
function conversation(turns: number, size: number): MessageParam[] {
  const text = 'é€🌍 "quoted" \\ line\n'.repeat(Math.ceil(size / 20)).slice(0, size);
  const messages: MessageParam[] = [];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: 'user', content: `${i}: ${text}` });
    messages.push({ role: 'assistant', content: [{ type: 'text', text: `answer ${i}` }] });
  }
  messages.push({ role: 'user', content: 'last' });
  return messages;
}

describe('the request body on the wire', () => {
  it.each([
    ['small, joined into one buffer', 4, 200],
    ['large, written as its chunks', 6, 40_000],
  ])('%s: the server receives the exact JSON, again on a repeated history', async (_name, turns, size) => {
    const server = (open.server = await startScriptedServer({ script: reply }));
    const client = (open.client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'sk-test' }));
    const first: MessagesRequest = { model: 'm', max_tokens: 16, system: 'be brief', messages: conversation(turns, size) };
    // The second request reuses the first one's cached message JSON, so its body is several chunks.
    const second: MessagesRequest = { ...first, messages: [...first.messages.slice(0, -1), { role: 'user', content: 'last, again' }] };
    for (const request of [first, second]) expect((await run(client.stream(request))).error).toBeUndefined();
    const expected = [first, second].map((r) => JSON.stringify({ ...r, stream: true }));
    const total = Buffer.byteLength(expected[1]!);
    expect(total > 64 * 1024).toBe(size > 1000);
    expect(server.requests.map((r) => r.rawBody)).toEqual(expected);
    expect(server.requests.map((r) => Number(r.headers['content-length']))).toEqual(expected.map((e) => Buffer.byteLength(e)));
    expect(server.requests.map((r) => r.validationErrors)).toEqual([[], []]);
  });
});
