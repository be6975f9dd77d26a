import fc from 'fast-check';
import { from, Observable, of, take, throwError, concat, NEVER, defer } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ApiError, ConnectionError, StreamProtocolError } from '../../src/errors.js';
import { decodeSSE } from '../../operators/decodeSSE.js';
import type { TransportOutput } from '../../src/transport/types.js';
import { goldenBytes, goldenEvents, goldenText, messageStart, sseEvent } from './sseFixtures.js';

interface Decoded {
  outputs: TransportOutput[];
  error?: unknown;
  completed: boolean;
}

/** Runs the (synchronous) sources below to the end and records everything. */
function decode(source: Observable<Uint8Array | string> | readonly (Uint8Array | string)[], maxBufferSize?: number): Decoded {
  const result: Decoded = { outputs: [], completed: false };
  const source$ = Array.isArray(source) ? from(source as (Uint8Array | string)[]) : (source as Observable<Uint8Array | string>);
  source$.pipe(decodeSSE(maxBufferSize === undefined ? {} : { maxBufferSize })).subscribe({
    next: (o) => result.outputs.push(o),
    error: (e: unknown) => (result.error = e),
    complete: () => (result.completed = true),
  });
  return result;
}

function chunksOf(bytes: Uint8Array, sizes: readonly number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let at = 0;
  for (let i = 0; at < bytes.length; i++) {
    const size = Math.max(1, sizes[i % sizes.length] ?? 1);
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return chunks;
}

const encode = (text: string) => new TextEncoder().encode(text);
const start = sseEvent(messageStart);
const stop = sseEvent({ type: 'message_stop' });
const textStart = sseEvent({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
const textDelta = (text: string, index = 0) => sseEvent({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });

describe('decodeSSE', () => {
  it('decodes a golden stream into its events, ignoring comments and retry fields', () => {
    const { outputs, error, completed } = decode([goldenBytes]);
    expect(error).toBeUndefined();
    expect(completed).toBe(true);
    expect(outputs).toEqual(goldenEvents);
  });

  it('gives the same events at every byte split point of the golden stream', () => {
    const expected = JSON.stringify(goldenEvents);
    for (let cut = 1; cut < goldenBytes.length; cut++) {
      const { outputs, error } = decode([goldenBytes.subarray(0, cut), goldenBytes.subarray(cut)]);
      expect(error, `cut at ${cut}`).toBeUndefined();
      expect(JSON.stringify(outputs), `cut at ${cut}`).toBe(expected); // cheaper than a deep equal per cut
    }
  });

  it('gives the same events for one-byte chunks and random chunk sizes', () => {
    expect(decode(chunksOf(goldenBytes, [1])).outputs).toEqual(goldenEvents);
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 64 }), { minLength: 1, maxLength: 20 }), (sizes) => {
        const { outputs, error } = decode(chunksOf(goldenBytes, sizes));
        expect(error).toBeUndefined();
        expect(outputs).toEqual(goldenEvents);
      }),
      { numRuns: 200 },
    );
  });

  it('accepts text chunks as well as bytes', () => {
    const half = Math.floor(goldenText.length / 2);
    expect(decode([goldenText.slice(0, half), goldenText.slice(half)]).outputs).toEqual(goldenEvents);
  });

  it('joins a multi-byte character split across chunks', () => {
    const bytes = encode(start + textStart + textDelta('a🌍b') + stop);
    const emoji = encode('🌍');
    const at = indexOfBytes(bytes, emoji);
    // Cut inside the 4-byte sequence at each of its three inner points.
    for (const inner of [1, 2, 3]) {
      const { outputs } = decode([bytes.subarray(0, at + inner), bytes.subarray(at + inner)]);
      expect(outputs[2]).toMatchObject({ delta: { text: 'a🌍b' } });
    }
  });

  it('turns invalid UTF-8 into replacement characters instead of failing', () => {
    const before = encode(start + textStart + 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x');
    const after = encode('y"}}\n\n' + stop);
    const bytes = new Uint8Array([...before, 0xff, 0xc3, ...after]); // a stray byte and a truncated sequence
    const { outputs, error } = decode([bytes]);
    expect(error).toBeUndefined();
    expect(outputs[2]).toMatchObject({ delta: { text: 'x\uFFFD\uFFFDy' } });
  });

  it('understands CRLF and lone CR line endings', () => {
    const lf = start + textStart + textDelta('hi') + stop;
    const expected = decode([lf]).outputs;
    expect(expected).toHaveLength(4);
    const crlf = lf.replace(/\n/g, '\r\n');
    const cr = lf.replace(/\n/g, '\r');
    expect(decode([crlf]).outputs).toEqual(expected);
    expect(decode([cr]).outputs).toEqual(expected);
    // A CR at the end of one chunk and its LF at the start of the next is one line end.
    const cut = crlf.indexOf('\r\n') + 1;
    expect(decode([crlf.slice(0, cut), crlf.slice(cut)]).outputs).toEqual(expected);
  });

  it('ignores comments, id and retry fields, and unknown fields', () => {
    const text = `: keep-alive\n${start}id: 7\nretry: 10\nfoo: bar\n${stop.replace('event:', ': x\nevent:')}`;
    const { outputs, error } = decode([text]);
    expect(error).toBeUndefined();
    expect(outputs.map((o) => o.type)).toEqual(['message_start', 'message_stop']);
  });

  it('reports unknown event types as debug events and goes on', () => {
    const text =
      start +
      sseEvent({ type: 'brand_new_event', x: 1 }) +
      sseEvent('not even json', 'future_thing') +
      sseEvent({ type: 'another_new_event' }, 'message') + // an unknown SSE name wins; `message` is not ours
      stop;
    const { outputs, error } = decode([text]);
    expect(error).toBeUndefined();
    expect(outputs.map((o) => o.type)).toEqual(['message_start', 'debug', 'debug', 'debug', 'message_stop']);
    expect(outputs[1]).toMatchObject({ type: 'debug', message: expect.stringContaining('brand_new_event') });
    expect(outputs[2]).toMatchObject({ type: 'debug', message: expect.stringContaining('future_thing') });
  });

  it('passes deltas of an unknown type on (assembly applies them), checking only their string type', () => {
    const text =
      start + textStart + sseEvent({ type: 'content_block_delta', index: 0, delta: { type: 'sparkle_delta', sparkle: 1 } }) + textDelta('ok') + stop;
    const { outputs, error } = decode([text]);
    expect(error).toBeUndefined();
    expect(outputs.map((o) => o.type)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_delta', 'message_stop']);
    expect(outputs[2]).toEqual({ type: 'content_block_delta', index: 0, delta: { type: 'sparkle_delta', sparkle: 1 } });
    const bad = decode([start + textStart + sseEvent({ type: 'content_block_delta', index: 0, delta: { type: 7 } }) + stop]);
    expect(bad.error).toMatchObject({ type: 'invalid_event', message: expect.stringContaining('"delta.type" is not a string') });
  });

  it('passes a block of an unknown type on whole, with its deltas and stop (content, not noise)', () => {
    const gadget = { type: 'server_gadget', id: 'g', nested: { deep: [1, 2] } };
    const text =
      start +
      sseEvent({ type: 'content_block_start', index: 0, content_block: gadget }) +
      sseEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'kept' } }) +
      sseEvent({ type: 'content_block_stop', index: 0 }) +
      sseEvent({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }) +
      textDelta('shown', 1) +
      sseEvent({ type: 'content_block_stop', index: 1 }) +
      stop;
    const { outputs, error } = decode([text]);
    expect(error).toBeUndefined();
    expect(outputs.map((o) => o.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'message_stop',
    ]);
    expect(outputs[1]).toEqual({ type: 'content_block_start', index: 0, content_block: gadget });
    // A core type with its fields missing is still invalid.
    const bad = decode([start + sseEvent({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 'x' } }) + stop]);
    expect(bad.error).toMatchObject({ type: 'invalid_event' });
  });

  it('fails with invalid_json quoting the first bytes, after emitting what came before', () => {
    const text = start + 'event: content_block_delta\ndata: <html><body>Bad gateway</body></html>\n\n' + stop;
    const { outputs, error } = decode([text]);
    expect(outputs.map((o) => o.type)).toEqual(['message_start']);
    expect(error).toBeInstanceOf(StreamProtocolError);
    expect(error).toMatchObject({ type: 'invalid_json', message: expect.stringContaining('<html><body>Bad gateway') });
  });

  it('fails with invalid_event on a malformed delta or a rare event that breaks its schema', () => {
    const badDelta = decode([start + textStart + sseEvent({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 5 } })]);
    expect(badDelta.error).toMatchObject({ type: 'invalid_event', message: expect.stringContaining('"text"') });
    const badIndex = decode([start + sseEvent({ type: 'content_block_delta', index: -1, delta: { type: 'text_delta', text: '' } })]);
    expect(badIndex.error).toMatchObject({ type: 'invalid_event' });
    const badStart = decode([sseEvent({ type: 'message_start', message: { id: 1 } })]);
    expect(badStart.error).toBeInstanceOf(StreamProtocolError);
    expect(badStart.error).toMatchObject({ type: 'invalid_event', message: expect.stringContaining('message') });
    const noType = decode([start + sseEvent({ index: 0 }, 'content_block_stop')]);
    expect(noType.error).toMatchObject({ type: 'invalid_event' });
  });

  it('fails with out_of_order on an event before message_start or after message_stop', () => {
    const early = decode([textStart]);
    expect(early.error).toMatchObject({ type: 'out_of_order', message: expect.stringContaining('before message_start') });
    const earlyDelta = decode([textDelta('x')]);
    expect(earlyDelta.error).toMatchObject({ type: 'out_of_order' });
    const late = decode([start + stop + sseEvent({ type: 'ping' })]);
    expect(late.outputs.map((o) => o.type)).toEqual(['message_start', 'message_stop']);
    expect(late.error).toMatchObject({ type: 'out_of_order', message: expect.stringContaining('after message_stop') });
  });

  it('fails with ended_before_message_stop when the source completes early (and on an empty source)', () => {
    const cut = decode([start + textStart + textDelta('partial')]);
    expect(cut.outputs).toHaveLength(3);
    expect(cut.error).toBeInstanceOf(StreamProtocolError);
    expect(cut.error).toMatchObject({ type: 'ended_before_message_stop', retryable: true });
    const empty = decode([]);
    expect(empty.outputs).toEqual([]);
    expect(empty.error).toMatchObject({ type: 'ended_before_message_stop', message: expect.stringContaining('before message_start') });
    // An event without its closing blank line does not count.
    const unterminated = decode([start + stop.slice(0, -1)]);
    expect(unterminated.error).toMatchObject({ type: 'ended_before_message_stop' });
  });

  it('turns an SSE error event into an ApiError, retryable like its HTTP twin', () => {
    const overloaded = decode([start + sseEvent({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } })]);
    expect(overloaded.outputs.map((o) => o.type)).toEqual(['message_start']);
    expect(overloaded.error).toBeInstanceOf(ApiError);
    expect(overloaded.error).toMatchObject({ errorType: 'overloaded_error', retryable: true, status: undefined });
    const invalid = decode([sseEvent({ type: 'error', error: { type: 'invalid_request_error', message: 'nope' } })]);
    expect(invalid.error).toMatchObject({ errorType: 'invalid_request_error', retryable: false });
  });

  it('fails with buffer_overflow when one event outgrows the cap', () => {
    const huge = start + `event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"${'x'.repeat(5000)}`;
    const { outputs, error } = decode(chunksOf(encode(huge), [512]), 2000);
    expect(outputs.map((o) => o.type)).toEqual(['message_start']);
    expect(error).toBeInstanceOf(StreamProtocolError);
    expect(error).toMatchObject({ type: 'buffer_overflow', retryable: false });
    // The same event under a larger cap is fine.
    expect(decode([huge + '"}}\n\n' + stop], 10_000).error).toBeUndefined();
  });

  // The operator checklist.
  it('passes a source error through after the events before it', () => {
    const failure = new ConnectionError('socket closed', 'UND_ERR_SOCKET');
    const { outputs, error } = decode(concat(of(start), throwError(() => failure)));
    expect(outputs.map((o) => o.type)).toEqual(['message_start']);
    expect(error).toBe(failure);
  });

  it('emits one event per completed event and nothing for a partial one', () => {
    const partial = start + 'event: ping\ndata: {"type":"pi';
    const seen: string[] = [];
    concat(of(partial), NEVER).pipe(decodeSSE()).subscribe((o) => seen.push(o.type)).unsubscribe();
    expect(seen).toEqual(['message_start']);
    let completed = false;
    const one: string[] = [];
    concat(of(start), NEVER)
      .pipe(decodeSSE(), take(1))
      .subscribe({ next: (o) => one.push(o.type), complete: () => (completed = true) });
    expect(one).toEqual(['message_start']);
    expect(completed).toBe(true);
  });

  it('stops a never-ending source when unsubscribed early', () => {
    let unsubscribed = false;
    const endless = new Observable<string>((subscriber) => {
      subscriber.next(start);
      return () => (unsubscribed = true);
    });
    const seen: string[] = [];
    const subscription = endless.pipe(decodeSSE()).subscribe((o) => seen.push(o.type));
    expect(seen).toEqual(['message_start']);
    subscription.unsubscribe();
    expect(unsubscribed).toBe(true);
  });

  it('stops listening to a synchronous source when unsubscribed', () => {
    let produced = 0;
    const synchronous = new Observable<string>((subscriber) => {
      subscriber.next(start);
      for (let i = 0; !subscriber.closed && i < 100; i++) {
        produced++;
        subscriber.next(sseEvent({ type: 'ping' }));
      }
    });
    const seen: string[] = [];
    synchronous.pipe(decodeSSE(), take(3)).subscribe((o) => seen.push(o.type));
    expect(seen).toEqual(['message_start', 'ping', 'ping']);
    expect(produced).toBe(2);
  });

  it('routes a bad chunk (neither text nor bytes) to the error channel instead of throwing', () => {
    const { error } = decode(of(42 as unknown as string));
    expect(error).toBeInstanceOf(Error);
  });

  it('starts fresh for a second subscription (cold)', () => {
    let subscriptions = 0;
    const source = defer(() => {
      subscriptions++;
      return from([goldenBytes.subarray(0, 100), goldenBytes.subarray(100)]);
    });
    const decoded$ = source.pipe(decodeSSE());
    expect(subscriptions).toBe(0);
    const runs: TransportOutput[][] = [[], []];
    decoded$.subscribe((o) => runs[0]!.push(o));
    decoded$.subscribe((o) => runs[1]!.push(o));
    expect(runs[0]).toEqual(goldenEvents);
    expect(runs[1]).toEqual(goldenEvents);
    expect(subscriptions).toBe(2);
  });
});

function indexOfBytes(haystack: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= haystack.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

describe('parsers handed from one response to the next', () => {
  it('keep nothing of the last response: a cut event at its end never reaches the next', () => {
    // The first response is complete but ends in an event without its blank line (discarded by
    // the SSE rules); its parser then goes back to the pool and decodes the next responses. A
    // leftover message_stop there would arrive before message_start: an out_of_order error.
    const first = decode([goldenText + 'event: message_stop\ndata: {"type":"message_stop"}\n']);
    expect(first.error).toBeUndefined();
    expect(first.outputs).toEqual(goldenEvents);
    for (let i = 0; i < 3; i++) {
      const next = decode([goldenBytes]);
      expect(next.error).toBeUndefined();
      expect(next.outputs).toEqual(goldenEvents);
    }
  });

  it('a response cut mid-line leaves the next one clean', () => {
    const cut = goldenText.indexOf('"type":"message_delta"') + 5;
    expect(decode([goldenText.slice(0, cut)]).error).toBeInstanceOf(StreamProtocolError);
    const next = decode([goldenBytes]);
    expect(next.error).toBeUndefined();
    expect(next.outputs).toEqual(goldenEvents);
  });
});
