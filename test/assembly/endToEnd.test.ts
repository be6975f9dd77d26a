/**
 * The real client path over real HTTP: scripted server → createMessagesClient → assembleBlocks.
 * Checks what only the whole path can show: tiny byte chunks on a socket, and a stream cut
 * mid-message whose retry must not leave anything of the void attempt in the message.
 */
import { lastValueFrom, toArray } from 'rxjs';
import { afterEach, expect, it } from 'vitest';
import { assembleBlocks } from '../../operators/assembleBlocks.js';
import type { AssemblyOutput } from '../../src/assembly/types.js';
import type { ScriptedMessage } from '../../src/testing/script.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import type { ScriptedServer } from '../../src/testing/scriptedServer.js';
import { createMessagesClient } from '../../src/transport/createMessagesClient.js';
import type { ClosableMessagesClient } from '../../src/transport/createMessagesClient.js';

let server: ScriptedServer | undefined;
let client: ClosableMessagesClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
});

const request = { model: 'claude-scripted', max_tokens: 1024, stream: true, messages: [{ role: 'user' as const, content: 'go' }] };

const message: ScriptedMessage = {
  kind: 'message',
  byteChunkSize: 7, // split inside events and inside multi-byte characters
  blocks: [
    { type: 'thinking', thinking: 'Erst lesen, dann ändern. 🤔', chunkSize: 5 },
    { type: 'text', text: 'Reading both files — 日本語 too.', chunkSize: 3 },
    { type: 'tool_use', name: 'Read', input: { file_path: '/tmp/ä.ts' }, chunkSize: 4 },
    { type: 'tool_use', name: 'Glob', input: { pattern: '**/*.ts' }, chunkSize: 2 },
  ],
};

async function assembleFrom(script: ScriptedMessage[]): Promise<AssemblyOutput[]> {
  server = await startScriptedServer({ script });
  client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'sk-test-key', retryBaseDelayMs: 1, retryMaxDelayMs: 5 });
  return lastValueFrom(client.stream(request).pipe(assembleBlocks(), toArray()));
}

function finalMessage(outputs: readonly AssemblyOutput[]) {
  const last = outputs.at(-1);
  if (last?.type !== 'message') throw new Error(`expected a message last, got ${last?.type}`);
  return last.message;
}

it('assembles a streamed response sent in 7-byte pieces', async () => {
  const outputs = await assembleFrom([message]);
  const assembled = finalMessage(outputs);
  expect(assembled.content).toEqual([
    { type: 'thinking', thinking: 'Erst lesen, dann ändern. 🤔', signature: expect.any(String) },
    { type: 'text', text: 'Reading both files — 日本語 too.' },
    { type: 'tool_use', id: expect.any(String), name: 'Read', input: { file_path: '/tmp/ä.ts' } },
    { type: 'tool_use', id: expect.any(String), name: 'Glob', input: { pattern: '**/*.ts' } },
  ]);
  expect(assembled.stop_reason).toBe('tool_use');
  expect(outputs.filter((o) => o.type === 'block')).toHaveLength(4);
});

it('a stream cut mid-message is retried and the void attempt leaves nothing in the message', async () => {
  const outputs = await assembleFrom([{ ...message, cutAfterEvents: 12 }, message]);
  const types = outputs.map((o) => o.type);
  expect(types.filter((t) => t === 'stream_retry')).toHaveLength(1);
  // The first attempt's deltas were emitted before the retry notice, then a fresh message started.
  expect(types.indexOf('stream_retry')).toBeGreaterThan(types.indexOf('thinking_delta'));
  expect(types.filter((t) => t === 'message_start')).toHaveLength(2);
  const assembled = finalMessage(outputs);
  expect(assembled.content.map((b) => b.type)).toEqual(['thinking', 'text', 'tool_use', 'tool_use']);
  expect(assembled.content[1]).toEqual({ type: 'text', text: 'Reading both files — 日本語 too.' });
});
