import { describe, expect, it } from 'vitest';
import {
  encodeSSEStream,
  estimateInputTokens,
  scriptedMessageToEvents,
  type ScriptedMessage,
} from '../../src/testing/index.js';
import { parseSSE, post, readError, readMessage, readTimed, useScriptedServer, validBody } from './helpers.js';
import { eventually } from '../eventually.js';

const start = useScriptedServer();

const mixed: ScriptedMessage = {
  kind: 'message',
  blocks: [
    { type: 'thinking', thinking: 'let me think about it', chunkSize: 5 },
    { type: 'text', text: 'Héllo 🌍 wörld', chunkSize: 3 },
    { type: 'tool_use', name: 'Read', input: { path: '/tmp/a b.txt', n: [1, 2] }, chunkSize: 4 },
  ],
};

describe('startScriptedServer: SSE', () => {
  it('streams exactly the events of scriptedMessageToEvents, framed as SSE', async () => {
    const s = await start({ script: [mixed] });
    const res = await post(s.baseURL, validBody());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('request-id')).toBe('req_scripted_0');
    const text = await res.text();
    const expected = scriptedMessageToEvents(mixed, { responseIndex: 0, model: 'claude-test', inputTokens: estimateInputTokens(s.requests[0]!.rawBody) }).map((e) => e.event);
    const parsed = parseSSE(text);
    expect(parsed.map((p) => p.data)).toEqual(expected);
    expect(parsed.every((p) => p.event === (p.data as { type: string }).type)).toBe(true);
    expect(text).toBe(encodeSSEStream(expected));
  });

  it('splits the bytes by byteChunkSize without changing them', async () => {
    const s = await start({ script: [{ ...mixed, byteChunkSize: 7 }] });
    const res = await post(s.baseURL, validBody());
    const text = await res.text();
    expect(parseSSE(text).map((p) => p.data)).toEqual(
      scriptedMessageToEvents(mixed, { responseIndex: 0, model: 'claude-test', inputTokens: estimateInputTokens(s.requests[0]!.rawBody) }).map((e) => e.event),
    );
  });

  it('records the request, with the api key readable but not printable', async () => {
    const s = await start({ script: [mixed] });
    await (await post(s.baseURL, validBody())).text();
    const [rec] = s.requests;
    expect(rec).toBeDefined();
    expect(rec!.index).toBe(0);
    expect(rec!.body?.model).toBe('claude-test');
    expect(rec!.validationErrors).toEqual([]);
    expect(rec!.closedByClient).toBe(false);
    expect(rec!.headers['x-api-key']).toBe('sk-test-secret');
    expect(rec!.headers['anthropic-version']).toBe('2023-06-01');
    expect(JSON.stringify(rec)).not.toContain('sk-test-secret');
    expect((await import('node:util')).inspect(rec, { depth: 5 })).not.toContain('sk-test-secret');
  });

  it('records when each response ended', async () => {
    const s = await start({ script: [{ kind: 'message', blocks: [{ type: 'text', text: 'x', delayMs: 60 }] }] });
    await (await post(s.baseURL, validBody())).text();
    // The server sees its side close a little after the client read the body: wait for that.
    const rec = s.requests[0]!;
    await eventually(() => rec.endedAt !== undefined, { what: 'the server recording the end' });
    expect(rec.endedAt! - rec.receivedAt).toBeGreaterThanOrEqual(55);
  });

  it('respects the delays, roughly', async () => {
    const msg: ScriptedMessage = {
      kind: 'message',
      blocks: [{ type: 'text', text: 'abcdef', chunkSize: 2, delayMs: 100, deltaDelayMs: 60 }],
      endDelayMs: 80,
    };
    const s = await start({ script: [msg] });
    const t0 = Date.now();
    const res = await post(s.baseURL, validBody());
    const { chunks } = await readTimed(res, t0);
    const total = chunks[chunks.length - 1]!.at;
    expect(total).toBeGreaterThanOrEqual(100 + 3 * 60 + 80 - 10);
    expect(total).toBeLessThan(10_000); // only "not wildly longer": a loaded machine runs timers late
    const firstDelta = chunks.find((c) => c.text.includes('text_delta'))!;
    expect(firstDelta.at).toBeGreaterThanOrEqual(150);
  });
});

describe('startScriptedServer: script handling', () => {
  it('plays a function script with the request and the response count', async () => {
    const seen: number[] = [];
    const s = await start({
      script: (req, n) => {
        seen.push(n);
        return { kind: 'message', blocks: [{ type: 'text', text: `echo ${String(req.messages[0]?.content)}` }] };
      },
    });
    const text = await readMessage(await post(s.baseURL, validBody({ stream: false })));
    expect(text.content).toEqual([{ type: 'text', text: 'echo hello' }]);
    await (await post(s.baseURL, validBody({ stream: false }))).json();
    expect(seen).toEqual([0, 1]);
  });

  it('answers 500 with x-should-retry: false when the script is exhausted, and records the request', async () => {
    const s = await start({ script: [mixed] });
    await (await post(s.baseURL, validBody())).text();
    const res = await post(s.baseURL, validBody());
    expect(res.status).toBe(500);
    expect(res.headers.get('x-should-retry')).toBe('false');
    const body = await readError(res);
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('api_error');
    expect(body.error.message).toMatch(/script is exhausted after 1 response/);
    expect(s.requests).toHaveLength(2);
  });

  it('answers an invalid request with a 400 without consuming the script', async () => {
    const s = await start({ script: [mixed] });
    const bad = await post(s.baseURL, validBody({ messages: [{ role: 'assistant', content: 'hi' }] }));
    expect(bad.status).toBe(400);
    const body = await readError(bad);
    expect(body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(body.error.message).toContain('messages[0]: the first message must have role "user"');
    expect(s.requests[0]!.validationErrors.length).toBeGreaterThan(0);
    const good = await post(s.baseURL, validBody());
    expect(good.status).toBe(200);
    expect(parseSSE(await good.text())).toHaveLength(scriptedMessageToEvents(mixed).length);
  });

  it('close() ends a stalled response and returns', async () => {
    const s = await start({ script: [{ kind: 'stall' }] });
    const res = await post(s.baseURL, validBody());
    expect(res.status).toBe(200);
    const reading = res.text().then(
      () => 'ended',
      () => 'errored',
    );
    await s.close();
    expect(['ended', 'errored']).toContain(await reading);
    expect(s.requests[0]!.closedByClient).toBe(false);
  });
});
