import { Observable, take } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { assembleBlocks } from '../operators/assembleBlocks.js';
import type { AssemblyOutput } from '../src/assembly/types.js';
import { AssemblyError } from '../src/errors.js';
import type { StreamRetryEvent, TransportOutput } from '../src/transport/types.js';
import {
  blockStop,
  json,
  messageDelta,
  messageStart,
  messageStop,
  ping,
  text,
  textStart,
  toolStart,
} from '../test/assembly/events.js';
import { createTestScheduler } from './helpers/testScheduler.js';

const retry: StreamRetryEvent = {
  type: 'stream_retry',
  attempt: 1,
  maxRetries: 10,
  delayMs: 500,
  status: undefined,
  errorType: 'connection',
  message: 'socket closed',
};

// Inputs: wire events.
const IN: Record<string, TransportOutput> = {
  S: messageStart(),
  b: textStart(0),
  t: text(0, 'Hi'),
  u: text(0, ' there'),
  x: blockStop(0),
  B: toolStart(1, 'toolu_1', 'Read'),
  j: json(1, '{"path":'),
  k: json(1, '"a.ts"}'),
  y: blockStop(1),
  D: messageDelta('tool_use', { output_tokens: 9 }),
  M: messageStop,
  p: ping,
  R: retry,
  Z: text(7, 'stray'),
};

// Outputs.
const usage = { input_tokens: 10, output_tokens: 1 };
const OUT: Record<string, AssemblyOutput> = {
  s: { type: 'message_start', id: 'msg_1', model: 'claude-test', usage },
  o: { type: 'block_start', index: 0, block: { type: 'text', text: '' } },
  t: { type: 'text_delta', index: 0, text: 'Hi' },
  u: { type: 'text_delta', index: 0, text: ' there' },
  x: { type: 'block', index: 0, block: { type: 'text', text: 'Hi there' } },
  O: { type: 'block_start', index: 1, block: { type: 'tool_use', id: 'toolu_1', name: 'Read', input: {} } },
  i: { type: 'tool_input_delta', index: 1, id: 'toolu_1', name: 'Read', partialJson: '{"path":', receivedChars: 8 },
  I: { type: 'tool_input_delta', index: 1, id: 'toolu_1', name: 'Read', partialJson: '"a.ts"}', receivedChars: 15 },
  y: { type: 'block', index: 1, block: { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'a.ts' } } },
  d: { type: 'message_delta', stopReason: 'tool_use', stopSequence: null, usage: { input_tokens: 10, output_tokens: 9 } },
  m: {
    type: 'message',
    message: {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'claude-test',
      content: [
        { type: 'text', text: 'Hi there' },
        { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'a.ts' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 9 },
    },
  },
  R: retry,
};

describe('assembleBlocks', () => {
  it('emits nothing and completes for an empty source', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold(' ---|', IN);
      expectObservable(source.pipe(assembleBlocks())).toBe('---|', OUT);
      expectSubscriptions(source.subscriptions).toBe('^--!');
    });
  });

  it('emits one output for one event', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-S|', IN).pipe(assembleBlocks())).toBe('-s|', OUT);
    });
  });

  it('emits deltas in their own frames, each block in the frame of its content_block_stop, the message at message_stop', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold(' -S-b-t-u-x-B-j-p-k-y-D-M-|', IN);
      const expected = '   -s-o-t-u-x-O-i---I-y-d-m-|';
      expectObservable(source.pipe(assembleBlocks())).toBe(expected, OUT);
      expectSubscriptions(source.subscriptions).toBe('^------------------------!');
    });
  });

  it('emits the outputs of events arriving in one frame in that frame, in order', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-(Sbtux)|', IN).pipe(assembleBlocks())).toBe('-(sotux)|', OUT);
    });
  });

  // assembleBlocks takes no callbacks; the throwing-callback case of the checklist is the
  // reducer throwing, which must surface at the offending event's frame.
  it('errors at the offending event and unsubscribes the source', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold(' -S-b-Z-t-|', IN);
      const expected = '   -s-o-#';
      expectObservable(source.pipe(assembleBlocks())).toBe(
        expected,
        OUT,
        new AssemblyError('delta_for_unknown_block', 'text_delta for index 7, which was never started'),
      );
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });

  it('passes a source error through unchanged', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const boom = new Error('socket reset');
      expectObservable(cold('-S-b-#', IN, boom).pipe(assembleBlocks())).toBe('-s-o-#', OUT, boom);
    });
  });

  it('passes stream_retry through and starts over: the void attempt leaves nothing behind', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const source = cold(' -S-b-t-R-S-b-t-u-x-|', IN);
      const expected = '   -s-o-t-R-s-o-t-u-x-|';
      expectObservable(source.pipe(assembleBlocks())).toBe(expected, OUT);
    });
  });

  it('unsubscribes from a never-ending source when the consumer unsubscribes', () => {
    createTestScheduler().run(({ hot, expectObservable, expectSubscriptions }) => {
      const source = hot(' -S-b-t-------', IN);
      const unsub = '     -------!';
      expectObservable(source.pipe(assembleBlocks()), unsub).toBe('-s-o-t-', OUT);
      expectSubscriptions(source.subscriptions).toBe('^------!');
    });
  });

  it('stops a synchronous source when a downstream take(3) unsubscribes early', () => {
    const pattern = [messageStart(), textStart(0)];
    let produced = 0;
    const synchronous = new Observable<TransportOutput>((subscriber) => {
      for (const event of pattern) subscriber.next(event);
      // Keep going as long as someone listens: a text delta at a time.
      while (!subscriber.closed && produced < 1000) {
        produced++;
        subscriber.next(text(0, 'x'));
      }
      subscriber.complete();
    });
    const seen: string[] = [];
    synchronous.pipe(assembleBlocks(), take(3)).subscribe((event) => seen.push(event.type));
    expect(seen).toEqual(['message_start', 'block_start', 'text_delta']);
    expect(produced).toBe(1);
  });

  it('starts fresh for a second subscription (cold, state per subscription)', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const assembled = cold('-S-b-t-x-|', IN).pipe(assembleBlocks());
      const OUT2 = { ...OUT, x: { type: 'block', index: 0, block: { type: 'text', text: 'Hi' } } };
      expectObservable(assembled).toBe('-s-o-t-x-|', OUT2);
      expectObservable(assembled).toBe('-s-o-t-x-|', OUT2);
    });
  });
});
