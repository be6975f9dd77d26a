import { asyncScheduler, VirtualTimeScheduler, type SchedulerAction, type SchedulerLike, type Subscription } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ApiError, ConnectionError, RxAgentError, StreamIdleTimeout, StreamProtocolError } from '../../src/errors.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { StreamEvent } from '../../src/protocol/events.js';
import { estimateInputTokens, scriptedMessageToEvents } from '../../src/testing/encodeScript.js';
import type { Script, ScriptedMessage } from '../../src/testing/script.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { createMessagesClient, type MessagesClientOptions } from '../../src/transport/createMessagesClient.js';
import type { ApiRetryEvent, TransportOutput } from '../../src/transport/types.js';
import { run, useOpenHandles } from './helpers.js';

const API_KEY = 'sk-ant-test-SECRET-0123456789';
const request: MessagesRequest = { model: 'claude-test', max_tokens: 64, messages: [{ role: 'user', content: 'Hello' }] };
const hello: ScriptedMessage = { kind: 'message', blocks: [{ type: 'text', text: 'Hi there, friend', chunkSize: 5 }] };
const rawBody = JSON.stringify({ ...request, stream: true });
/** The events the server plays for `msg` as its `responseIndex`-th scripted response. */
const eventsOf = (msg: ScriptedMessage, responseIndex = 0): StreamEvent[] =>
  scriptedMessageToEvents(msg, { responseIndex, model: request.model, inputTokens: estimateInputTokens(rawBody) }).map((e) => e.event);

/** A scheduler that records every requested wait and runs it at once, so backoff tests are instant. */
function recordingScheduler(waits: number[]): SchedulerLike {
  return {
    now: () => Date.now(),
    schedule<T>(work: (this: SchedulerAction<T>, state?: T) => void, delay?: number, state?: T): Subscription {
      waits.push(delay ?? 0);
      return asyncScheduler.schedule(work, 0, state);
    },
  };
}

const open = useOpenHandles();

async function setup(script: Script, options: Partial<MessagesClientOptions> = {}) {
  const server = (open.server = await startScriptedServer({ script }));
  const waits: number[] = [];
  const client = (open.client = createMessagesClient({
    baseURL: server.baseURL,
    apiKey: API_KEY,
    random: () => 0, // no jitter: exact delays
    scheduler: recordingScheduler(waits),
    ...options,
  }));
  return { server, client, waits };
}

const retries = (outputs: TransportOutput[]) =>
  outputs.filter((o): o is ApiRetryEvent | Extract<TransportOutput, { type: 'stream_retry' }> => o.type === 'api_retry' || o.type === 'stream_retry');
const streamEvents = (outputs: TransportOutput[]) =>
  outputs.filter((o) => o.type !== 'api_retry' && o.type !== 'stream_retry' && o.type !== 'debug');
/** What a consumer keeps: everything after the last retry announcement. */
const afterLastRetry = (outputs: TransportOutput[]) => {
  const last = outputs.findLastIndex((o) => o.type === 'api_retry' || o.type === 'stream_retry');
  return streamEvents(outputs.slice(last + 1));
};

describe('createMessagesClient against the scripted server', () => {
  it('streams a response: cold, with the right headers and body', async () => {
    const { server, client } = await setup([hello], { headers: { 'X-Custom': 'yes' } });
    const stream$ = client.stream(request, { headers: { 'x-call': 'one' } });
    // A round trip to the same server (a route it does not record) instead of a 30 ms nap: a
    // request sent when the stream was made would have been seen by then.
    expect((await fetch(`${server.baseURL}/not-recorded`)).status).toBe(404);
    expect(server.requests).toHaveLength(0); // nothing before subscribe
    const { outputs, error } = await run(stream$);
    expect(error).toBeUndefined();
    expect(outputs).toEqual(eventsOf(hello, 0));
    expect(server.requests).toHaveLength(1);
    const recorded = server.requests[0]!;
    expect(recorded.validationErrors).toEqual([]);
    expect(recorded.headers['x-api-key']).toBe(API_KEY);
    expect(recorded.headers['anthropic-version']).toBe('2023-06-01');
    expect(recorded.headers['content-type']).toBe('application/json');
    expect(recorded.headers['x-custom']).toBe('yes');
    expect(recorded.headers['x-call']).toBe('one');
    expect(recorded.body).toEqual({ ...request, stream: true });
  });

  it('decodes a response written in tiny byte chunks', async () => {
    const emoji: ScriptedMessage = { kind: 'message', blocks: [{ type: 'text', text: 'ü€🌍 ok', chunkSize: 2 }], byteChunkSize: 3 };
    const { client } = await setup([emoji]);
    const { outputs, error } = await run(client.stream(request));
    expect(error).toBeUndefined();
    expect(outputs).toEqual(eventsOf(emoji));
  });

  it('maps each HTTP error status with a JSON body to an ApiError (type, request id, retryable)', async () => {
    const cases = [
      [400, 'invalid_request_error', false],
      [401, 'authentication_error', false],
      [403, 'permission_error', false],
      [404, 'not_found_error', false],
      [408, 'api_error', true],
      [409, 'api_error', true],
      [413, 'request_too_large', false],
      [429, 'rate_limit_error', true],
      [500, 'api_error', true],
      [503, 'api_error', true],
      [529, 'overloaded_error', true],
    ] as const;
    const { client, server } = await setup(cases.map(([status, errorType]) => ({ kind: 'http_error', status, errorType, message: `scripted ${status}` })));
    for (const [index, [status, errorType, retryable]] of cases.entries()) {
      const { outputs, error } = await run(client.stream(request, { maxRetries: 0 }));
      expect(outputs).toEqual([]);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status, errorType, retryable, requestId: `req_scripted_${index}` });
      expect((error as Error).message).toContain(`HTTP ${status}`);
      expect((error as Error).message).toContain(`scripted ${status}`);
    }
    expect(server.requests).toHaveLength(cases.length);
  });

  it('gives a clear ApiError for a non-JSON error body (a proxy page), quoting its start', async () => {
    const html = '<html><head><title>502 Bad Gateway</title></head><body>upstream went away</body></html>';
    const { client } = await setup([
      { kind: 'http_error', status: 502, body: html },
      { kind: 'http_error', status: 401, body: 'Unauthorized' },
      { kind: 'http_error', status: 500, body: '' },
    ]);
    const proxy = await run(client.stream(request, { maxRetries: 0 }));
    expect(proxy.error).toBeInstanceOf(ApiError);
    expect(proxy.error).toMatchObject({ status: 502, errorType: 'api_error', retryable: true });
    expect((proxy.error as Error).message).toMatch(/HTTP 502 api_error: .*502 Bad Gateway/);
    const plain = await run(client.stream(request, { maxRetries: 0 }));
    expect(plain.error).toMatchObject({ status: 401, errorType: 'authentication_error', retryable: false });
    expect((plain.error as Error).message).toContain('Unauthorized');
    const empty = await run(client.stream(request, { maxRetries: 0 }));
    expect((empty.error as Error).message).toContain('(empty body)');
  });

  it('reads an endless error body only up to its cap, then fails and closes the socket', async () => {
    // The body never ends: the ApiError can only come from the cap (64 KiB) cutting the read.
    const { client, server } = await setup([
      { kind: 'raw', status: 503, headers: { 'content-type': 'text/plain' }, chunks: ['upstream down ', 'x'.repeat(40_000), 'y'.repeat(40_000)], holdOpen: true },
    ]);
    const { outputs, error } = await run(client.stream(request, { maxRetries: 0 }));
    expect(outputs).toEqual([]);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 503, retryable: true });
    expect((error as Error).message).toContain('upstream down');
    await server.waitForClientClose(0);
    expect(server.requests[0]!.closedByClient).toBe(true);
  });

  it('sends nothing when unsubscribed before the connection exists', async () => {
    const { client, server } = await setup([hello]);
    client.stream(request).subscribe().unsubscribe();
    await client.close(); // waits for any request under way
    open.client = undefined;
    expect(server.requests).toHaveLength(0);
  });

  it('retries 529 with announced, doubling waits, then succeeds', async () => {
    const overloaded = { kind: 'http_error', status: 529 } as const;
    const { client, server, waits } = await setup([overloaded, overloaded, overloaded, hello]);
    const { outputs, error } = await run(client.stream(request));
    expect(error).toBeUndefined();
    expect(retries(outputs)).toEqual([1, 2, 3].map((attempt) => ({
      type: 'api_retry',
      attempt,
      maxRetries: 10,
      delayMs: 500 * 2 ** (attempt - 1),
      status: 529,
      errorType: 'overloaded_error',
      message: expect.stringContaining('HTTP 529'),
    })));
    expect(waits).toEqual([500, 1000, 2000]);
    expect(outputs.slice(3)).toEqual(eventsOf(hello, 3)); // announcements first, nothing of the failures
    expect(server.requests).toHaveLength(4);
  });

  it('jitters the backoff down by up to a quarter and caps it at 32 s', async () => {
    const failing = Array.from({ length: 8 }, () => ({ kind: 'http_error', status: 500 }) as const);
    const { client } = await setup([...failing, hello], { random: () => 0.5 });
    const { outputs } = await run(client.stream(request));
    expect(retries(outputs).map((r) => r.delayMs)).toEqual([437.5, 875, 1750, 3500, 7000, 14000, 28000, 28000].map(Math.round));
  });

  it('gives up after maxRetries with the last error', async () => {
    const { client, server } = await setup(Array.from({ length: 5 }, () => ({ kind: 'http_error', status: 500 }) as const), { maxRetries: 2 });
    const { outputs, error } = await run(client.stream(request));
    expect(retries(outputs).map((r) => r.attempt)).toEqual([1, 2]);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 500 });
    expect(server.requests).toHaveLength(3);
  });

  it('honours retry-after and retry-after-ms: the larger of them and the backoff wins', async () => {
    const { client, waits } = await setup([
      { kind: 'http_error', status: 429, headers: { 'retry-after': '3' } },
      { kind: 'http_error', status: 429, headers: { 'retry-after-ms': '2500' } }, // backoff 1000 < 2500
      { kind: 'http_error', status: 429, headers: { 'retry-after': '1', 'retry-after-ms': '1500' } }, // backoff 2000 wins
      { kind: 'http_error', status: 429, headers: { 'retry-after': '0' } }, // backoff 4000 wins
      hello,
    ]);
    const { outputs, error } = await run(client.stream(request));
    expect(error).toBeUndefined();
    expect(retries(outputs).map((r) => r.delayMs)).toEqual([3000, 2500, 2000, 4000]);
    expect(waits).toEqual([3000, 2500, 2000, 4000]);
    expect(retries(outputs).every((r) => r.errorType === 'rate_limit_error' && r.status === 429)).toBe(true);
  });

  it('lets x-should-retry override the status rule both ways', async () => {
    const { client, server } = await setup([
      { kind: 'http_error', status: 400, headers: { 'x-should-retry': 'true' } },
      hello,
      { kind: 'http_error', status: 529, headers: { 'x-should-retry': 'false' } },
    ]);
    const forced = await run(client.stream(request));
    expect(forced.error).toBeUndefined();
    expect(retries(forced.outputs)).toHaveLength(1);
    const refused = await run(client.stream(request));
    expect(refused.outputs).toEqual([]);
    expect(refused.error).toMatchObject({ status: 529, retryable: false });
    expect(server.requests).toHaveLength(3);
  });

  it('retries an SSE error event after content as stream_retry; a non-retryable type fails', async () => {
    const erroring: ScriptedMessage = { ...hello, errorAfterEvents: { events: 3, type: 'overloaded_error', message: 'busy' } };
    const { client, server } = await setup([erroring, hello, { ...hello, errorAfterEvents: { events: 1, type: 'invalid_request_error', message: 'bad' } }]);
    const { outputs, error } = await run(client.stream(request));
    expect(error).toBeUndefined();
    const [retry] = retries(outputs);
    expect(retry).toMatchObject({ type: 'stream_retry', attempt: 1, status: undefined, errorType: 'overloaded_error', delayMs: 500 });
    expect(outputs.indexOf(retry!)).toBe(3); // after the three events of the failed attempt
    expect(afterLastRetry(outputs)).toEqual(eventsOf(hello, 1));
    expect(server.requests).toHaveLength(2);

    const fatal = await run(client.stream(request));
    expect(fatal.error).toBeInstanceOf(ApiError);
    expect(fatal.error).toMatchObject({ errorType: 'invalid_request_error', retryable: false });
    expect(retries(fatal.outputs)).toEqual([]);
  });

  it('announces an SSE error event before any content as api_retry', async () => {
    const { client } = await setup([{ ...hello, errorAfterEvents: { events: 0, type: 'api_error', message: 'oops' } }, hello]);
    const { outputs, error } = await run(client.stream(request));
    expect(error).toBeUndefined();
    expect(retries(outputs)).toMatchObject([{ type: 'api_retry', errorType: 'api_error' }]);
    expect(outputs.slice(1)).toEqual(eventsOf(hello, 1));
  });

  it('retries a connection dropped mid-stream as stream_retry, then succeeds', async () => {
    const { client, server } = await setup([{ ...hello, cutAfterEvents: 4 }, hello]);
    const { outputs, error } = await run(client.stream(request));
    expect(error).toBeUndefined();
    expect(retries(outputs)).toMatchObject([{ type: 'stream_retry', errorType: 'connection', status: undefined }]);
    expect(afterLastRetry(outputs)).toEqual(eventsOf(hello, 1));
    expect(server.requests).toHaveLength(2);
  });

  it('retries a body that ends before message_stop', async () => {
    const { client } = await setup([{ ...hello, omitMessageStop: true }, hello]);
    const { outputs, error } = await run(client.stream(request));
    expect(error).toBeUndefined();
    expect(retries(outputs)).toMatchObject([{ type: 'stream_retry', errorType: 'ended_before_message_stop' }]);
    expect(afterLastRetry(outputs)).toEqual(eventsOf(hello, 1));
  });

  it('times out a stalled response, closes its socket, and retries', async () => {
    const { client, server } = await setup([{ kind: 'stall' }, { ...hello, stallAfterEvents: 2 }, hello], {
      idleTimeoutMs: 1000, // generous: a loaded machine must not time out the healthy third response
    });
    const started = Date.now();
    const { outputs, error } = await run(client.stream(request));
    expect(error).toBeUndefined();
    expect(retries(outputs)).toMatchObject([
      { type: 'api_retry', errorType: 'stream_idle_timeout' },
      { type: 'stream_retry', errorType: 'stream_idle_timeout' },
    ]);
    expect(afterLastRetry(outputs)).toEqual(eventsOf(hello, 2));
    expect(Date.now() - started).toBeGreaterThanOrEqual(1990); // two idle periods
    await server.waitForClientClose(0);
    await server.waitForClientClose(1);
  });

  it('fails with StreamIdleTimeout when every attempt stalls', async () => {
    // 1 s, not 80 ms: the idle clock starts with the attempt, and on a loaded machine 80 ms could
    // pass before the server even read the second request (it then never recorded it).
    const { client, server } = await setup([{ kind: 'stall' }, { kind: 'stall' }], { idleTimeoutMs: 1000, maxRetries: 1 });
    const { outputs, error } = await run(client.stream(request));
    expect(retries(outputs)).toHaveLength(1);
    expect(error).toBeInstanceOf(StreamIdleTimeout);
    expect(error).toMatchObject({ idleTimeoutMs: 1000 });
    expect(server.requests).toHaveLength(2);
  });

  it('closes the socket when unsubscribed mid-stream', async () => {
    const slow: ScriptedMessage = { kind: 'message', blocks: [{ type: 'text', text: 'a b c d e f', chunkSize: 2, deltaDelayMs: 2000 }] };
    const { client, server } = await setup([slow]);
    const seen: string[] = [];
    const subscription = client.stream(request).subscribe((o) => seen.push(o.type));
    await server.waitForRequests(1);
    await until(() => seen.includes('content_block_start'));
    subscription.unsubscribe();
    await server.waitForClientClose(0);
    expect(server.requests[0]!.closedByClient).toBe(true);
  });

  it('cancels a pending retry wait when unsubscribed: no further request', async () => {
    // The wait runs on a virtual clock: unsubscribing must take its action off the scheduler, and
    // running the clock past it afterwards must send nothing. (Waiting 300 ms of a 2 s wait and
    // counting requests proved nothing.)
    const clock = new VirtualTimeScheduler();
    const { client, server } = await setup([{ kind: 'http_error', status: 529 }, hello], { scheduler: clock, retryBaseDelayMs: 2000 });
    const seen: TransportOutput[] = [];
    const subscription = client.stream(request).subscribe((o) => seen.push(o));
    await until(() => seen.length === 1);
    expect(seen[0]).toMatchObject({ type: 'api_retry', delayMs: 2000 });
    expect(clock.actions).toHaveLength(1); // the pending wait
    subscription.unsubscribe();
    expect(clock.actions).toHaveLength(0);
    clock.flush();
    await client.close(); // waits for any request under way: none may have started
    open.client = undefined;
    expect(server.requests).toHaveLength(1);
  });

  it('reports a refused connection as a retryable ConnectionError', async () => {
    const probe = await startScriptedServer({ script: [] });
    const baseURL = probe.baseURL;
    await probe.close(); // nothing listens there now
    const waits: number[] = [];
    const client = (open.client = createMessagesClient({ baseURL, apiKey: API_KEY, maxRetries: 1, random: () => 0, scheduler: recordingScheduler(waits) }));
    const { outputs, error } = await run(client.stream(request));
    expect(retries(outputs)).toMatchObject([{ type: 'api_retry', errorType: 'connection', status: undefined, delayMs: 500 }]);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ code: 'ECONNREFUSED', retryable: true });
  });

  it('does not retry a protocol fault: garbage data is a typed error', async () => {
    const { client, server } = await setup([
      { kind: 'raw', chunks: ['event: message_start\ndata: {not json at all\n\n'] },
      { kind: 'raw', chunks: ['{"type":"message"}'], headers: { 'content-type': 'application/json' } },
    ]);
    const garbage = await run(client.stream(request));
    expect(garbage.error).toBeInstanceOf(StreamProtocolError);
    expect(garbage.error).toMatchObject({ type: 'invalid_json', message: expect.stringContaining('{not json at all') });
    const notAStream = await run(client.stream(request));
    expect(notAStream.error).toBeInstanceOf(ApiError);
    expect((notAStream.error as Error).message).toContain('application/json');
    expect(server.requests).toHaveLength(2);
  });

  it('never lets the API key into an error, an event or a message', async () => {
    const echo = `invalid x-api-key: ${API_KEY}`;
    const { client } = await setup(
      [
        { kind: 'http_error', status: 500, message: echo },
        { kind: 'raw', chunks: [`event: key_echo\ndata: ${JSON.stringify({ type: 'key_echo', echo })}\n\n`], destroy: true },
        { kind: 'http_error', status: 401, body: `<p>${echo}</p>` },
      ],
      { maxRetries: 2 },
    );
    const { outputs, error } = await run(client.stream(request));
    expect(error).toBeInstanceOf(RxAgentError);
    expect(outputs.map((o) => o.type)).toEqual(['api_retry', 'debug', 'api_retry']);
    const everything = JSON.stringify(outputs) + String(error) + (error as Error).stack;
    expect(everything).not.toContain(API_KEY);
    expect(everything).toContain('[redacted]');
  });

  it('starts a fresh request for each subscription (cold, independent)', async () => {
    const { client, server } = await setup([hello, hello]);
    const stream$ = client.stream(request);
    const [a, b] = await Promise.all([run(stream$), run(stream$)]);
    expect([a.outputs, b.outputs].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)))).toEqual([eventsOf(hello, 0), eventsOf(hello, 1)]);

    expect(server.requests).toHaveLength(2);
  });
});

async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
