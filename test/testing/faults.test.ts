import { describe, expect, it } from 'vitest';
import {
  scriptedMessageToEvents,
  scriptedMessageToJson,
  estimateInputTokens,
  type ScriptedMessage,
} from '../../src/testing/index.js';
import { parseSSE, post, readError, readMessage, readUntil, readUntilEnd, useScriptedServer, validBody } from './helpers.js';
import { eventually } from '../eventually.js';

const start = useScriptedServer();

const msg: ScriptedMessage = {
  kind: 'message',
  blocks: [
    { type: 'text', text: 'one two three', chunkSize: 4 },
    { type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } },
  ],
};
const eventTypes = (text: string): string[] => parseSSE(text).map((p) => (p.data as { type: string }).type);
const fullTypes = scriptedMessageToEvents(msg).map((e) => e.event.type);

describe('stream faults', () => {
  it('cutAfterEvents destroys the connection after exactly N events', async () => {
    const s = await start({ script: [{ ...msg, cutAfterEvents: 3 }] });
    const res = await post(s.baseURL, validBody());
    expect(res.status).toBe(200);
    const { text, error } = await readUntilEnd(res);
    expect(error).toBeDefined();
    expect(eventTypes(text)).toEqual(fullTypes.slice(0, 3));
    expect(s.requests[0]!.closedByClient).toBe(false);
  });

  it('cutAfterEvents with byteChunkSize still delivers the N whole events before the cut', async () => {
    const s = await start({ script: [{ ...msg, cutAfterEvents: 4, byteChunkSize: 9 }] });
    const { text, error } = await readUntilEnd(await post(s.baseURL, validBody()));
    expect(error).toBeDefined();
    expect(eventTypes(text)).toEqual(fullTypes.slice(0, 4));
  });

  it('errorAfterEvents sends an SSE error event and ends the stream', async () => {
    const s = await start({
      script: [{ ...msg, errorAfterEvents: { events: 2, type: 'overloaded_error', message: 'Overloaded' } }],
    });
    const { text, error } = await readUntilEnd(await post(s.baseURL, validBody()));
    expect(error).toBeUndefined();
    const parsed = parseSSE(text);
    expect(parsed.map((p) => (p.data as { type: string }).type)).toEqual([...fullTypes.slice(0, 2), 'error']);
    expect(parsed[2]).toEqual({ event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } } });
  });

  it('omitMessageStop ends the body after message_delta', async () => {
    const s = await start({ script: [{ ...msg, omitMessageStop: true }] });
    const { text, error } = await readUntilEnd(await post(s.baseURL, validBody()));
    expect(error).toBeUndefined();
    expect(eventTypes(text)).toEqual(fullTypes.slice(0, -1));
    expect(fullTypes[fullTypes.length - 2]).toBe('message_delta');
  });

  it('stallAfterEvents sends N events, then nothing; an abort is recorded as closedByClient', async () => {
    const s = await start({ script: [{ ...msg, stallAfterEvents: 2 }] });
    const controller = new AbortController();
    const res = await post(s.baseURL, validBody(), { signal: controller.signal });
    const reader = res.body!.getReader();
    const text = await readUntil(reader, (t) => parseSSE(t).length >= 2);
    expect(eventTypes(text)).toEqual(fullTypes.slice(0, 2));
    // Nothing more arrives while stalled.
    const next = reader.read().then(
      () => 'data',
      () => 'aborted',
    );
    const quiet = await Promise.race([next, new Promise((r) => setTimeout(() => r('quiet'), 150))]);
    expect(quiet).toBe('quiet');
    controller.abort();
    await s.waitForClientClose(0);
    expect(s.requests[0]!.closedByClient).toBe(true);
    expect(await next).toBe('aborted');
  });

  it('a stall response records closedByClient when the client aborts', async () => {
    const s = await start({ script: [{ kind: 'stall' }] });
    const controller = new AbortController();
    const res = await post(s.baseURL, validBody(), { signal: controller.signal });
    expect(res.status).toBe(200);
    controller.abort();
    await s.waitForClientClose(0);
  });

  it('a complete response is not closedByClient', async () => {
    const s = await start({ script: [msg] });
    await (await post(s.baseURL, validBody())).text();
    await eventually(() => s.requests[0]!.endedAt !== undefined, { what: 'the server recording the end' });
    expect(s.requests[0]!.closedByClient).toBe(false);
    await expect(s.waitForClientClose(0, 50)).rejects.toThrow(/did not close request #0/);
  });
});

describe('http_error and raw', () => {
  it('sends the status, headers and the default API error body', async () => {
    const s = await start({ script: [{ kind: 'http_error', status: 429, headers: { 'retry-after': '3' } }] });
    const res = await post(s.baseURL, validBody());
    expect(res.status).toBe(429);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = await readError(res);
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('rate_limit_error');
    expect(body.request_id).toBe('req_scripted_0');
  });

  it('uses errorType and message for the default body', async () => {
    const s = await start({ script: [{ kind: 'http_error', status: 529, errorType: 'overloaded_error', message: 'busy' }] });
    const body = await readError(await post(s.baseURL, validBody()));
    expect(body.error).toEqual({ type: 'overloaded_error', message: 'busy' });
  });

  it('sends a string body as is (a proxy HTML page)', async () => {
    const html = '<html><body>502 Bad Gateway</body></html>';
    const s = await start({ script: [{ kind: 'http_error', status: 502, body: html }] });
    const res = await post(s.baseURL, validBody());
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toBe(html);
  });

  it('sends an object body as JSON', async () => {
    const s = await start({ script: [{ kind: 'http_error', status: 500, body: { weird: true } }] });
    expect(await (await post(s.baseURL, validBody())).json()).toEqual({ weird: true });
  });

  it('raw writes the chunks as given, with their delays, and may destroy', async () => {
    const s = await start({
      script: [
        { kind: 'raw', chunks: ['event: ping\ndata: {"type":"ping"}\n\n', { text: 'data: not json\n\n', delayMs: 50 }] },
        { kind: 'raw', chunks: ['event: message_start\n'], destroy: true },
      ],
    });
    const t0 = Date.now();
    const first = await readUntilEnd(await post(s.baseURL, validBody()));
    expect(Date.now() - t0).toBeGreaterThanOrEqual(45);
    expect(first).toEqual({ text: 'event: ping\ndata: {"type":"ping"}\n\ndata: not json\n\n', error: undefined });
    const second = await readUntilEnd(await post(s.baseURL, validBody()));
    expect(second.text).toBe('event: message_start\n');
    expect(second.error).toBeDefined();
  });
});

describe('JSON mode (stream is not true)', () => {
  it('answers the assembled message as JSON when stream is false', async () => {
    const s = await start({ script: [msg] });
    const res = await post(s.baseURL, validBody({ stream: false }));
    expect(res.headers.get('content-type')).toBe('application/json');
    const body = await readMessage(res);
    expect(body).toEqual(
      scriptedMessageToJson(msg, { responseIndex: 0, model: 'claude-test', inputTokens: estimateInputTokens(s.requests[0]!.rawBody) }),
    );
    expect(body.stop_reason).toBe('tool_use');
    expect(body.content[1]).toEqual({ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'ls' } });
  });

  it('answers JSON when stream is absent, like the real API', async () => {
    const s = await start({ script: [msg] });
    const { stream: _omit, ...body } = validBody();
    const res = await post(s.baseURL, body);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect((await readMessage(res)).type).toBe('message');
  });

  it('maps errorAfterEvents to the HTTP status of the error type', async () => {
    const s = await start({ script: [{ ...msg, errorAfterEvents: { events: 1, type: 'overloaded_error', message: 'Overloaded' } }] });
    const res = await post(s.baseURL, validBody({ stream: false }));
    expect(res.status).toBe(529);
    expect((await readError(res)).error).toEqual({ type: 'overloaded_error', message: 'Overloaded' });
  });

  it('a rawInput that is not JSON cannot be answered in JSON mode: a clear 500', async () => {
    const s = await start({ script: [{ kind: 'message', blocks: [{ type: 'tool_use', name: 'X', rawInput: '{"a":' }] }] });
    const res = await post(s.baseURL, validBody({ stream: false }));
    expect(res.status).toBe(500);
    expect((await readError(res)).error.message).toMatch(/rawInput is not JSON/);
  });

  it('cutAfterEvents destroys the connection without a response', async () => {
    const s = await start({ script: [{ ...msg, cutAfterEvents: 1 }] });
    await expect(post(s.baseURL, validBody({ stream: false }))).rejects.toThrow();
  });
});

describe('requests the server refuses', () => {
  it('a body that is not JSON gets a 400 and is recorded with its raw text', async () => {
    const s = await start({ script: [msg] });
    const res = await post(s.baseURL, '{"model": ');
    expect(res.status).toBe(400);
    expect((await readError(res)).error.message).toMatch(/not valid JSON/);
    expect(s.requests[0]!.body).toBeUndefined();
    expect(s.requests[0]!.rawBody).toBe('{"model": ');
  });

  it('other routes get a 404 in the API error shape and are not recorded', async () => {
    const s = await start({ script: [msg] });
    const res = await fetch(`${s.baseURL}/v1/models`);
    expect(res.status).toBe(404);
    expect((await readError(res)).error.type).toBe('not_found_error');
    expect(s.requests).toHaveLength(0);
  });

  it('validate: false plays the script for a request the API would refuse', async () => {
    const s = await start({ script: [msg], validate: false });
    const res = await post(s.baseURL, validBody({ messages: [{ role: 'assistant', content: 'x' }] }));
    expect(res.status).toBe(200);
    expect(s.requests[0]!.validationErrors).toEqual([]);
    await res.text();
  });

  it('a throwing script function gives a clear 500', async () => {
    const s = await start({
      script: () => {
        throw new Error('boom');
      },
    });
    const res = await post(s.baseURL, validBody());
    expect(res.status).toBe(500);
    expect(res.headers.get('x-should-retry')).toBe('false');
    expect((await readError(res)).error.message).toMatch(/script function threw.*boom/);
  });
});

describe('recording', () => {
  it('calls onRequest and resolves waitForRequests; default ids differ per response', async () => {
    const seen: number[] = [];
    const toolOnly: ScriptedMessage = { kind: 'message', blocks: [{ type: 'tool_use', name: 'T', input: {} }] };
    const s = await start({ script: [toolOnly, toolOnly], onRequest: (r) => seen.push(r.index) });
    const waiting = s.waitForRequests(2);
    const a = await readMessage(await post(s.baseURL, validBody({ stream: false })));
    const b = await readMessage(await post(s.baseURL, validBody({ stream: false })));
    await waiting;
    expect(seen).toEqual([0, 1]);
    expect(a.content[0]).toMatchObject({ id: 'toolu_scripted_0_0' });
    expect(b.content[0]).toMatchObject({ id: 'toolu_scripted_1_0' });
    expect(a.id).not.toBe(b.id);
    expect(s.requests[1]!.receivedAt).toBeGreaterThanOrEqual(s.requests[0]!.receivedAt);
  });

  it('waitForRequests rejects with a clear message on timeout, and on close', async () => {
    const s = await start({ script: [msg] });
    await expect(s.waitForRequests(1, 30)).rejects.toThrow(/expected 1 request\(s\), got 0/);
    const pending = s.waitForRequests(1, 5000);
    await s.close();
    await expect(pending).rejects.toThrow(/closed/);
  });

  it('close() is idempotent and ends a response stalled mid-stream', async () => {
    const s = await start({ script: [{ ...msg, stallAfterEvents: 1 }] });
    const res = await post(s.baseURL, validBody());
    const done = readUntilEnd(res);
    await Promise.all([s.close(), s.close()]);
    const { text } = await done;
    expect(eventTypes(text)).toEqual(['message_start']);
  });
});

describe('a bad script', () => {
  it('an invalid byteChunkSize or chunkSize is a clear 500, not a dropped connection', async () => {
    const s = await start({
      script: [
        { ...msg, byteChunkSize: 0 },
        { kind: 'message', blocks: [{ type: 'text', text: 'abc', chunkSize: 1.5 }] },
      ],
    });
    const first = await post(s.baseURL, validBody());
    expect(first.status).toBe(500);
    expect((await readError(first)).error.message).toMatch(/byteChunkSize must be a positive integer/);
    const second = await post(s.baseURL, validBody());
    expect(second.status).toBe(500);
    expect((await readError(second)).error.message).toMatch(/chunkSize must be a positive integer/);
  });
});

describe('close() with timers pending', () => {
  it('returns while a response waits on a long delay, and ends that response', async () => {
    // An hour's delay: a close() that waited for it would outlast vitest's hang bound, so close()
    // returning at all is the check (no elapsed-time bound for a loaded machine to miss).
    const s = await start({ script: [{ kind: 'message', blocks: [{ type: 'text', text: 'late', delayMs: 3_600_000 }] }] });
    const res = await post(s.baseURL, validBody());
    const reading = readUntilEnd(res);
    await s.waitForRequests(1);
    await s.close();
    const { text } = await reading;
    expect(eventTypes(text)).toEqual(['message_start']);
  });

  it('a JSON body that is not an object is refused even with validate: false', async () => {
    const s = await start({ script: [msg], validate: false });
    const res = await post(s.baseURL, 'null');
    expect(res.status).toBe(400);
    expect((await readError(res)).error.message).toMatch(/must be a JSON object/);
  });
});
