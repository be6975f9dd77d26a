/**
 * Bounds on one response that the line-buffer cap and the idle timeout do not give: the total
 * size of a response (a server streaming valid deltas forever) and its total duration (a stream
 * kept alive by pings forever, which also do not count as life for the idle timer).
 */
import { describe, expect, it } from 'vitest';
import { RequestTimeout, StreamIdleTimeout, StreamProtocolError } from '../../src/errors.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { Script, ScriptedMessage } from '../../src/testing/script.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { createMessagesClient, DEFAULT_REQUEST_TIMEOUT_MS, type MessagesClientOptions } from '../../src/transport/createMessagesClient.js';
import { createStreamEventDecoder } from '../../src/transport/streamEventDecoder.js';
import { run, useOpenHandles } from './helpers.js';

const request: MessagesRequest = { model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] };

const open = useOpenHandles();

async function setup(script: Script, options: Partial<MessagesClientOptions>) {
  const server = (open.server = await startScriptedServer({ script }));
  const client = (open.client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'test-key', random: () => 0, retryBaseDelayMs: 5, ...options }));
  return { server, client };
}

/** 20,000 characters of text in 2,000 deltas of 10: about 200 KB of SSE. */
const longReply: ScriptedMessage = { kind: 'message', blocks: [{ type: 'text', text: 'abcdefghij'.repeat(2_000), chunkSize: 10 }] };

/** The same, one delta per millisecond or so: still streaming when the client gives up. */
const endlessReply: ScriptedMessage = { kind: 'message', blocks: [{ type: 'text', text: 'abcdefghij'.repeat(2_000), chunkSize: 10, deltaDelayMs: 1 }] };

describe('maxResponseChars: the size of one response', () => {
  it('stops a response that streams valid deltas past the cap, with a non-retryable buffer_overflow', async () => {
    const { server, client } = await setup([endlessReply, endlessReply], { maxResponseChars: 20_000, maxRetries: 3 });
    const { outputs, error } = await run(client.stream(request));
    expect(error).toBeInstanceOf(StreamProtocolError);
    expect(error).toMatchObject({ type: 'buffer_overflow', retryable: false, message: expect.stringContaining('20000 characters') });
    // Events before the cap were delivered; far fewer than the 2,000 deltas the server had.
    const deltas = outputs.filter((o) => o.type === 'content_block_delta').length;
    expect(deltas).toBeGreaterThan(10);
    expect(deltas).toBeLessThan(400);
    // Not retried (the same reply would overflow again), and the socket is closed.
    expect(server.requests).toHaveLength(1);
    await server.waitForClientClose(0);
  });

  it('lets the same response through under the default cap (64 Mi)', async () => {
    const { client } = await setup([longReply], { maxRetries: 0 });
    const { outputs, error } = await run(client.stream(request));
    expect(error).toBeUndefined();
    expect(outputs.filter((o) => o.type === 'content_block_delta')).toHaveLength(2_000);
  });

  it('counts across chunks in the decoder, and a body exactly at the cap passes', () => {
    const body = 'event: ping\ndata: {"type":"ping"}\n\n';
    const exact = createStreamEventDecoder({ maxResponseChars: body.length * 3 });
    for (let i = 0; i < 3; i++) expect(exact.push(body).error).toBeUndefined();
    const over = exact.push('x');
    expect(over.error).toMatchObject({ type: 'buffer_overflow' });
    expect(exact.push(body)).toEqual({ outputs: [] }); // nothing after the error
  });
});

/** message_start, then a ping every 10 ms for ~40 s: never idle, never done. */
const pingsForever: Script = () => ({
  kind: 'raw',
  chunks: [
    'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":1,"output_tokens":0}}}\n\n',
    ...Array.from({ length: 4_000 }, () => ({ text: 'event: ping\ndata: {"type":"ping"}\n\n', delayMs: 10 })),
  ],
});

describe('requestTimeoutMs: the total time of one attempt', () => {
  it('ends a stream kept alive by pings, retrying it like an idle timeout, then failing with RequestTimeout', async () => {
    const { server, client } = await setup(pingsForever, { idleTimeoutMs: 2_000, requestTimeoutMs: 300, maxRetries: 1 });
    const started = Date.now();
    const { outputs, error } = await run(client.stream(request));
    expect(error).toBeInstanceOf(RequestTimeout);
    expect(error).toMatchObject({ kind: 'request_timeout', requestTimeoutMs: 300, retryable: true });
    // message_start was emitted, so the retry is announced as a stream_retry.
    expect(outputs.filter((o) => o.type === 'stream_retry')).toMatchObject([{ errorType: 'request_timeout' }]);
    expect(server.requests).toHaveLength(2);
    expect(Date.now() - started).toBeGreaterThanOrEqual(590);
    await server.waitForClientClose(0);
    await server.waitForClientClose(1);
  });

  it('defaults to 10 minutes (API_TIMEOUT_MS in Claude Code); 0 turns it off', () => {
    expect(DEFAULT_REQUEST_TIMEOUT_MS).toBe(600_000);
  });
});

describe('the idle timer counts content, not pings', () => {
  it('a stream of only pings after message_start is idle: StreamIdleTimeout while the pings still flow', async () => {
    // Pings every 10 ms for ~40 s, no deadline: only the idle timer (500 ms) can end it.
    const { server, client } = await setup(pingsForever, { idleTimeoutMs: 500, requestTimeoutMs: 0, maxRetries: 0 });
    const { outputs, error } = await run(client.stream(request));
    expect(error).toBeInstanceOf(StreamIdleTimeout);
    expect(outputs[0]).toMatchObject({ type: 'message_start' });
    expect(outputs.some((o) => o.type === 'ping')).toBe(true); // pings passed on, yet did not count
    await server.waitForClientClose(0);
  });

  it('content keeps it alive: a reply of many slow deltas finishes', async () => {
    const { client } = await setup([{ kind: 'message', blocks: [{ type: 'text', text: 'abcdefghij'.repeat(20), chunkSize: 10, deltaDelayMs: 20 }] }], {
      idleTimeoutMs: 5_000,
      maxRetries: 0,
    });
    const { outputs, error } = await run(client.stream(request));
    expect(error).toBeUndefined();
    expect(outputs.filter((o) => o.type === 'content_block_delta')).toHaveLength(20);
  });
});
