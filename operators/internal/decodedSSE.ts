/**
 * `DecodedSSE`: the Observable `decodeSSE()` returns. It behaves exactly like any other
 * Observable of `TransportOutput`; what it adds is that its chunk source and decoder options
 * stay readable, so `assembleBlocks()` applied right after it can decode and assemble in one
 * stage (`decodeChunks` with its own per-output step) instead of two. Private to the package.
 *
 * Why: a response is one stream event per few tokens. Two stages cost each event a second
 * subscriber hop (the batch loop, `Subscriber.next`, `_next`, the next stage's observer), and
 * right after a full GC those frames run unoptimized for a while; one stage costs a hop per
 * network chunk and one per output. Any operator in between (`map`, a timeout, retries)
 * returns a plain Observable, and the stages then run apart as before, with the same outputs.
 */
import { Observable, type Subscriber } from 'rxjs';
import { subscribeLinked } from './subscribeLinked.js';
import { createStreamEventDecoder, type DecodeBatch, type StreamEventDecoderOptions } from '../../src/transport/streamEventDecoder.js';
import type { TransportOutput } from '../../src/transport/types.js';

export class DecodedSSE extends Observable<TransportOutput> {
  constructor(
    readonly chunks$: Observable<Uint8Array | string>,
    readonly options: StreamEventDecoderOptions,
  ) {
    super((subscriber) => decodeChunks(chunks$, options, subscriber, (output) => subscriber.next(output)));
  }
}

/**
 * Decodes `chunks$` for `subscriber`: each output goes to `each` in order, in the frame of the
 * chunk that completed it; a decoder fault errors `subscriber` after the outputs before it.
 * `each` may close `subscriber` (an error of its own, or an unsubscribe downstream): the rest of
 * that chunk's outputs are then dropped and the source is stopped.
 */
export function decodeChunks<T>(
  chunks$: Observable<Uint8Array | string>,
  options: StreamEventDecoderOptions,
  subscriber: Subscriber<T>,
  each: (output: TransportOutput) => void,
): void {
  const decoder = createStreamEventDecoder(options); // per subscription: cold
  /** Hands a batch on in order; false once the output is over (an error, or unsubscribed). */
  const emit = (batch: DecodeBatch): boolean => {
    const { outputs, error } = batch;
    for (let i = 0; i < outputs.length; i++) {
      if (subscriber.closed) return false;
      each(outputs[i] as TransportOutput);
    }
    if (error !== undefined) subscriber.error(error);
    return !subscriber.closed;
  };
  // Each batch is handed on in a plain loop: no inner Observable per chunk.
  subscribeLinked(chunks$, subscriber, {
    next(chunk) {
      let batch: DecodeBatch;
      try {
        batch = decoder.push(chunk);
      } catch (error) {
        subscriber.error(error); // a chunk that is neither text nor bytes
        return;
      }
      // A closed output has already unsubscribed us (we are part of its teardown).
      emit(batch);
    },
    error: (error: unknown) => subscriber.error(error),
    complete() {
      if (emit(decoder.end())) subscriber.complete();
    },
  });
}
