/**
 * The scripted server's event gates: `endAfter` on a message holds its end (in JSON mode the
 * whole answer), `startAfter` on a block holds that block, until a promise of the test's
 * settles. Each test opens its gate only after a full round trip of another request, so a server
 * that ignored the gate would have answered long before: the order in `log` tells.
 */
import { describe, expect, it } from 'vitest';
import { gate, type ScriptedMessage } from '../../src/testing/index.js';
import { parseSSE, post, readRest, readUntil, readUntilEnd, useScriptedServer, validBody } from './helpers.js';

const start = useScriptedServer();

const reply = (text: string, extra: Partial<ScriptedMessage> = {}): ScriptedMessage => ({ kind: 'message', blocks: [{ type: 'text', text }], ...extra });
const eventTypes = (text: string): string[] => parseSSE(text).map((p) => (p.data as { type: string }).type);

describe('endAfter', () => {
  it('holds message_delta and message_stop until the promise settles; the blocks come first', async () => {
    const held = gate();
    const s = await start({ script: [reply('held', { endAfter: held.promise }), reply('other')] });
    const log: string[] = [];
    const res = await post(s.baseURL, validBody());
    const reader = res.body!.getReader();
    const before = await readUntil(reader, (t) => t.includes('content_block_stop'));
    // Another request's whole round trip, then the gate opens.
    await (await post(s.baseURL, validBody())).text();
    log.push('gate opened');
    held.open();
    const rest = await readRest(reader);
    log.push('ended');
    expect(eventTypes(before)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop']);
    expect(eventTypes(rest)).toEqual(['message_delta', 'message_stop']);
    expect(log).toEqual(['gate opened', 'ended']);
    expect(s.requests[0]!.endedAt).toBeGreaterThanOrEqual(s.requests[1]!.endedAt!);
  });

  it('in JSON mode holds the whole answer', async () => {
    const held = gate();
    const s = await start({ script: [reply('held', { endAfter: held.promise }), reply('other')] });
    const log: string[] = [];
    const answer = post(s.baseURL, validBody({ stream: false })).then(async (r) => {
      log.push('answered');
      return (await r.json()) as { content: unknown };
    });
    await s.waitForRequests(1);
    await (await post(s.baseURL, validBody({ stream: false }))).json();
    log.push('gate opened');
    held.open();
    expect((await answer).content).toEqual([{ type: 'text', text: 'held' }]);
    expect(log).toEqual(['gate opened', 'answered']);
  });

  it('a promise that rejects opens the gate too (the script decides nothing by failing)', async () => {
    const rejecting: PromiseLike<never> = { then: (_ok, fail) => (fail?.(new Error('no')), undefined as never) };
    const s = await start({ script: [reply('fine', { endAfter: rejecting })] });
    const { text, error } = await readUntilEnd(await post(s.baseURL, validBody()));
    expect(error).toBeUndefined();
    expect(eventTypes(text).at(-1)).toBe('message_stop');
  });

  it('a request aborted while held is closed by the client and frees the server (no hang)', async () => {
    const never = gate();
    const s = await start({ script: [reply('never ends', { endAfter: never.promise }), reply('json never ends', { endAfter: never.promise })] });
    const streaming = new AbortController();
    const res = await post(s.baseURL, validBody(), { signal: streaming.signal });
    await readUntil(res.body!.getReader(), (t) => t.includes('content_block_stop'));
    streaming.abort();
    await s.waitForClientClose(0);

    const json = new AbortController();
    const pending = post(s.baseURL, validBody({ stream: false }), { signal: json.signal }).catch((e: unknown) => e);
    await s.waitForRequests(2);
    json.abort();
    expect(await pending).toMatchObject({ name: 'AbortError' });
    await s.waitForClientClose(1);
    await s.close();
    expect(never.isOpen()).toBe(false);
  });
});

describe('startAfter', () => {
  it('holds a block (and all after it) until the promise settles', async () => {
    const second = gate();
    const s = await start({
      script: [
        { kind: 'message', blocks: [{ type: 'text', text: 'first' }, { type: 'text', text: 'second', startAfter: second.promise }] },
        reply('other'),
      ],
    });
    const res = await post(s.baseURL, validBody());
    const reader = res.body!.getReader();
    const before = await readUntil(reader, (t) => t.includes('content_block_stop'));
    await (await post(s.baseURL, validBody())).text();
    second.open();
    const rest = await readRest(reader);
    expect(eventTypes(before)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop']);
    expect(parseSSE(rest)[0]).toMatchObject({ data: { type: 'content_block_start', index: 1 } });
    expect(eventTypes(rest).at(-1)).toBe('message_stop');
  });

  it('in JSON mode holds the answer', async () => {
    const block = gate();
    const s = await start({ script: [{ kind: 'message', blocks: [{ type: 'text', text: 'late', startAfter: block.promise }] }, reply('other')] });
    const log: string[] = [];
    const answer = post(s.baseURL, validBody({ stream: false })).then((r) => (log.push('answered'), r.json()));
    await s.waitForRequests(1);
    await (await post(s.baseURL, validBody({ stream: false }))).json();
    log.push('gate opened');
    block.open();
    expect(await answer).toMatchObject({ content: [{ type: 'text', text: 'late' }] });
    expect(log).toEqual(['gate opened', 'answered']);
  });
});
