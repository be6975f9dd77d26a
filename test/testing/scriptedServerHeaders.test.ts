/**
 * When a stream's headers leave. The server sends them with the first event when that event is
 * written at once (one socket write), and flushes them alone first whenever the body's first bytes
 * may wait: these tests hold the body back and check the client has its response (status and
 * headers) before anything of the body is let go.
 */
import { describe, expect, it } from 'vitest';
import { gate, scriptedMessageToEvents, type ScriptedMessage } from '../../src/testing/index.js';
import { parseSSE, post, readUntilEnd, useScriptedServer, validBody } from './helpers.js';

const start = useScriptedServer();

const reply = (extra: Partial<ScriptedMessage> = {}): ScriptedMessage => ({ kind: 'message', blocks: [{ type: 'text', text: 'held back' }], ...extra });
const eventTypes = (text: string): string[] => parseSSE(text).map((p) => (p.data as { type: string }).type);
const allTypes = scriptedMessageToEvents(reply()).map((e) => e.event.type);

describe('stream headers', () => {
  it('come at once when a chunk size larger than the stream holds every byte back until a gate opens', async () => {
    const held = gate();
    const s = await start({ script: [reply({ byteChunkSize: 1 << 20, endAfter: held.promise })] });
    // Resolves on the headers alone: no byte of the body can leave before the gate opens.
    const res = await post(s.baseURL, validBody());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(res.headers.get('request-id')).toBe('req_scripted_0');
    held.open();
    const { text, error } = await readUntilEnd(res);
    expect(error).toBeUndefined();
    expect(eventTypes(text)).toEqual(allTypes);
  });

  it('come at once when the stream stalls before its first event', async () => {
    const s = await start({ script: [reply({ stallAfterEvents: 0 })] });
    const aborter = new AbortController();
    const res = await post(s.baseURL, validBody(), { signal: aborter.signal });
    expect(res.status).toBe(200);
    expect(res.headers.get('request-id')).toBe('req_scripted_0');
    aborter.abort();
    await s.waitForClientClose(0);
  });

  it('come before the cut when the connection is cut before the first event', async () => {
    const s = await start({ script: [reply({ cutAfterEvents: 0 })] });
    const res = await post(s.baseURL, validBody());
    expect(res.status).toBe(200);
    const { text, error } = await readUntilEnd(res);
    expect(error).toBeDefined();
    expect(text).toBe('');
  });

  it('come with the first event otherwise, the stream unchanged', async () => {
    const s = await start({ script: [reply(), reply({ errorAfterEvents: { events: 0, type: 'overloaded_error', message: 'busy' } })] });
    const first = await post(s.baseURL, validBody());
    expect(first.status).toBe(200);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    expect(eventTypes(await first.text())).toEqual(allTypes);
    const second = await post(s.baseURL, validBody());
    expect(second.status).toBe(200);
    expect(parseSSE(await second.text())).toEqual([{ event: 'error', data: { type: 'error', error: { type: 'overloaded_error', message: 'busy' } } }]);
  });
});
