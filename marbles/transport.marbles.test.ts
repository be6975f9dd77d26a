import { Observable, take } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { ApiError, ConnectionError } from '../src/errors.js';
import { decodeSSE } from '../operators/decodeSSE.js';
import type { TransportOutput } from '../src/transport/types.js';
import { withAnnouncedRetries } from '../src/transport/withAnnouncedRetries.js';
import { messageStart, sseEvent } from '../test/transport/sseFixtures.js';
import { createTestScheduler } from './helpers/testScheduler.js';

const textStart = { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } };
const delta = (text: string) => ({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } });
const stop = { type: 'message_stop' };

// Input chunks (SSE text), cut so that events complete in particular chunks.
const startText = sseEvent(messageStart);
const IN = {
  a: startText.slice(0, 20), // half an event
  b: startText.slice(20) + sseEvent(textStart), // completes two events
  c: sseEvent(delta('Hi')),
  d: sseEvent(stop),
  g: 'event: content_block_delta\ndata: {oops\n\n',
};
const OUT = { s: messageStart, t: textStart, h: delta('Hi'), x: stop } as unknown as Record<string, TransportOutput>;

describe('decodeSSE (marbles)', () => {
  it('emits each event in the frame of the chunk that completes it', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b-----c-d|', IN);
      expectObservable(source.pipe(decodeSSE())).toBe('---(st)--h-x|', OUT);
      expectSubscriptions(source.subscriptions).toBe('^-----------!');
    });
  });

  it('errors in the frame of the offending chunk, after the events before it', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b-----g-c|', IN);
      const result = source.pipe(decodeSSE());
      expectObservable(result).toBe('---(st)--#', OUT, expect.objectContaining({ type: 'invalid_json' }));
      expectSubscriptions(source.subscriptions).toBe('^--------!');
    });
  });

  it('errors at completion when message_stop never came; empty source too', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-a-b-----|', IN).pipe(decodeSSE())).toBe('---(st)--#', OUT, expect.objectContaining({ type: 'ended_before_message_stop' }));
      expectObservable(cold('|').pipe(decodeSSE())).toBe('#', {}, expect.objectContaining({ type: 'ended_before_message_stop', message: expect.stringContaining('before message_start') }));
    });
  });

  it('passes a source error through and never emits on a never-ending source', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const failure = new ConnectionError('reset');
      expectObservable(cold('-a-b-----#', IN, failure).pipe(decodeSSE())).toBe('---(st)--#', OUT, failure);
      const endless = cold('-a-b---', IN);
      expectObservable(endless.pipe(decodeSSE()), '^------!').toBe('---(st)', OUT);
      expectSubscriptions(endless.subscriptions).toBe('^------!');
    });
  });

  it('is cold: each subscription decodes from scratch', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-a-b-----c-d|', IN);
      const decoded = source.pipe(decodeSSE());
      expectObservable(decoded).toBe('---(st)--h-x|', OUT);
      expectObservable(decoded).toBe('---(st)--h-x|', OUT);
      expectSubscriptions(source.subscriptions).toBe(['^-----------!', '^-----------!']);
    });
  });
});

describe('withAnnouncedRetries (marbles)', () => {
  const retryValues = (type: 'api_retry' | 'stream_retry', attempt: number, delayMs: number, errorType: string, status?: number) =>
    expect.objectContaining({ type, attempt, delayMs, errorType, status });

  it('announces api_retry before each wait, then resubscribes; delays double', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const overloaded = new ApiError(529, 'overloaded_error', 'HTTP 529', true);
      const attempts = [cold<TransportOutput>('--#', {}, overloaded), cold<TransportOutput>('--#', {}, overloaded), cold<TransportOutput>('-s-x|', OUT)];
      let n = 0;
      const result = withAnnouncedRetries(() => attempts[n++]!, { maxRetries: 10, backoff: { random: () => 0 } });
      expectObservable(result).toBe('--a 499ms --b 999ms -s-x|', {
        ...OUT,
        a: retryValues('api_retry', 1, 500, 'overloaded_error', 529),
        b: retryValues('api_retry', 2, 1000, 'overloaded_error', 529),
      });
      expectSubscriptions(attempts[0]!.subscriptions).toBe('^-!');
      expectSubscriptions(attempts[1]!.subscriptions).toBe('--- 499ms ^-!');
      expectSubscriptions(attempts[2]!.subscriptions).toBe('--- 499ms --- 999ms ^---!');
    });
  });

  it('announces stream_retry when the failed attempt had emitted message_start', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const attempts = [cold<TransportOutput>('-s-h-#', OUT, new ConnectionError('closed')), cold<TransportOutput>('-s-x|', OUT)];
      let n = 0;
      const result = withAnnouncedRetries(() => attempts[n++]!, { maxRetries: 1, backoff: { baseDelayMs: 10, random: () => 0 } });
      expectObservable(result).toBe('-s-h-r 9ms -s-x|', { ...OUT, r: retryValues('stream_retry', 1, 10, 'connection') });
    });
  });

  it('rethrows the last error once retries run out, and a non-retryable one at once', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const failure = new ApiError(500, 'api_error', 'HTTP 500', true);
      const always = cold<TransportOutput>('-#', {}, failure);
      const exhausted = withAnnouncedRetries(() => always, { maxRetries: 1, backoff: { baseDelayMs: 5, random: () => 0 } });
      expectObservable(exhausted).toBe('-r 4ms -#', { r: retryValues('api_retry', 1, 5, 'api_error', 500) }, failure);
      const invalid = new ApiError(400, 'invalid_request_error', 'HTTP 400', false);
      expectObservable(withAnnouncedRetries(() => cold<TransportOutput>('-#', {}, invalid), { maxRetries: 5 })).toBe('-#', {}, invalid);
    });
  });

  it('cancels the wait on unsubscribe: no further attempt', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const attempts = [cold<TransportOutput>('-#', {}, new ConnectionError('refused')), cold<TransportOutput>('-s-x|', OUT)];
      let n = 0;
      const result = withAnnouncedRetries(() => attempts[n++]!, { maxRetries: 3, backoff: { baseDelayMs: 100, random: () => 0 } });
      expectObservable(result, '^-- 50ms !').toBe('-r', { r: retryValues('api_retry', 1, 100, 'connection') });
      expectSubscriptions(attempts[1]!.subscriptions).toBe([]);
    });
  });

  it('maps errors before judging and rethrowing them (a throwing attempt factory is an error too)', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const mapped = new ApiError(400, 'invalid_request_error', 'mapped', false);
      const result = withAnnouncedRetries(() => cold('-#', {}, new Error('raw')), { maxRetries: 3, mapError: () => mapped });
      expectObservable(result).toBe('-#', {}, mapped);
      const thrower = withAnnouncedRetries(
        () => {
          throw new TypeError('factory bug');
        },
        { maxRetries: 3 },
      );
      expectObservable(thrower).toBe('#', {}, new TypeError('factory bug'));
    });
  });

  it('stops listening to a synchronous attempt when unsubscribed', () => {
    let produced = 0;
    const synchronous = new Observable<TransportOutput>((subscriber) => {
      for (let i = 0; !subscriber.closed && i < 100; i++) {
        produced++;
        subscriber.next({ type: 'ping' });
      }
    });
    const seen: string[] = [];
    withAnnouncedRetries(() => synchronous, { maxRetries: 1 })
      .pipe(take(3))
      .subscribe((o) => seen.push(o.type));
    expect(seen).toEqual(['ping', 'ping', 'ping']);
    expect(produced).toBe(3);
  });
});
