/**
 * `BatchedOutputs`: an Observable of `TransportOutput` that can also hand its outputs to a
 * consumer that knows how, a batch per network chunk. It behaves exactly like any other
 * Observable of `TransportOutput` (subscribed plainly, it emits each output); what it adds is
 * `subscribeBatches(subscriber, deliver, context)`, through which `assembleBlocks()` applied
 * right after it receives each batch in its own per-output step. Private to the package.
 *
 * Who makes one: `decodeSSE()`, the client's decoded attempt (`src/transport/decodedAttempt.ts`)
 * and its retries (`withAnnouncedRetries`), so `client.stream(request).pipe(assembleBlocks())`
 * runs from socket chunk to assembled output with one subscriber hop per output.
 *
 * Why: a response is one stream event per few tokens. Each stage between decoder and assembler
 * costs each event a subscriber hop (`Subscriber.next`, `_next`, the next stage's observer), and
 * right after a full GC those frames run unoptimized for a while; batched, the stages in between
 * cost one call per network chunk. Any other operator in between (`map`, a timeout) returns a
 * plain Observable, and the stages then run apart, with the same outputs.
 */
import { Observable, type Subscriber } from 'rxjs';
import { subscribeLinked } from './subscribeLinked.js';
import { createStreamEventDecoder, type DecodeBatch, type StreamEventDecoder, type StreamEventDecoderOptions } from '../../src/transport/streamEventDecoder.js';
import type { TransportOutput } from '../../src/transport/types.js';
import { keepRxShapes, keepShape } from '../../src/util/keepShape.js';

/**
 * Hands a decoded batch to `subscriber`, in order. Stops early once `subscriber` is closed (an
 * error of its own, or an unsubscribe downstream): the rest of that batch is then dropped.
 */
export type DeliverBatch<C, T> = (context: C, outputs: readonly TransportOutput[], subscriber: Subscriber<T>) => void;

/**
 * Starts the source for `subscriber`, handing it every batch through `deliver(context, …)`;
 * errors and completion go to `subscriber`, and every teardown is added to it.
 */
export type SubscribeBatches = <C, T>(subscriber: Subscriber<T>, deliver: DeliverBatch<C, T>, context: C) => void;

export class BatchedOutputs extends Observable<TransportOutput> {
  constructor(readonly subscribeBatches: SubscribeBatches) {
    super((subscriber) => subscribeBatches(subscriber, passOn, undefined));
  }
}

/** `decodeSSE()` over `chunks$`. */
export function decodedSSE(chunks$: Observable<Uint8Array | string>, options: StreamEventDecoderOptions): BatchedOutputs {
  return new BatchedOutputs((subscriber, deliver, context) => decodeChunks(chunks$, options, subscriber, deliver, context));
}

/** The plain delivery: each output as it is. */
function passOn(_context: undefined, outputs: readonly TransportOutput[], subscriber: Subscriber<TransportOutput>): void {
  for (let i = 0; i < outputs.length && !subscriber.closed; i++) subscriber.next(outputs[i] as TransportOutput);
}

/**
 * Decodes `chunks$` for `subscriber`: each chunk's outputs go to `deliver` (with `context`) in
 * the frame of the chunk that completed them; a decoder fault errors `subscriber` after the
 * outputs before it, and the source is stopped once `subscriber` is closed.
 *
 * `deliver` is meant to be a module-level function and the per-subscription closures here stay
 * one line each: V8 drops the optimized code of functions none of whose instances survive a
 * full GC, so the work per event lives in functions that outlive every stream.
 */
export function decodeChunks<C, T>(
  chunks$: Observable<Uint8Array | string>,
  options: StreamEventDecoderOptions,
  subscriber: Subscriber<T>,
  deliver: DeliverBatch<C, T>,
  context: C,
): void {
  const decoder = createStreamEventDecoder(options); // per subscription: cold
  subscribeLinked(chunks$, subscriber, new ChunkObserver(decoder, subscriber, deliver, context));
}

/**
 * The source's observer. A class, not an object of arrow functions: even a one-line closure
 * made per subscription is compiled by TurboFan with everything it calls inlined into it, and
 * that code died with the closure at the next full GC, so each response after a collection paid
 * the compile again (`--trace-opt`: `next` recompiled once per response). A prototype method
 * is one function for all subscriptions and keeps its code; one idle instance (below) keeps the
 * hidden class it is built on.
 */
class ChunkObserver<C, T> {
  constructor(
    private readonly decoder: StreamEventDecoder,
    private readonly subscriber: Subscriber<T>,
    private readonly deliver: DeliverBatch<C, T>,
    private readonly context: C,
  ) {}

  next(chunk: Uint8Array | string): void {
    onChunk(this.decoder, chunk, this.subscriber, this.deliver, this.context);
  }

  error(error: unknown): void {
    this.subscriber.error(error);
  }

  complete(): void {
    if (emit(this.decoder.end(), this.subscriber, this.deliver, this.context)) this.subscriber.complete();
  }
}

function onChunk<C, T>(decoder: StreamEventDecoder, chunk: Uint8Array | string, subscriber: Subscriber<T>, deliver: DeliverBatch<C, T>, context: C): void {
  let batch: DecodeBatch;
  try {
    batch = decoder.push(chunk);
  } catch (error) {
    subscriber.error(error); // a chunk that is neither text nor bytes
    return;
  }
  // A closed output has already unsubscribed us (we are part of its teardown).
  emit(batch, subscriber, deliver, context);
}

/** Delivers a batch, then its error; false once the output is over (an error, or unsubscribed). */
function emit<C, T>(batch: DecodeBatch, subscriber: Subscriber<T>, deliver: DeliverBatch<C, T>, context: C): boolean {
  if (batch.outputs.length > 0 && !subscriber.closed) deliver(context, batch.outputs, subscriber);
  if (batch.error !== undefined && !subscriber.closed) subscriber.error(batch.error);
  return !subscriber.closed;
}

// One idle instance (it subscribes to nothing), and the RxJS shapes of the streaming path, so
// their hidden classes and the code optimized for them survive a full GC between two responses
// (see keepShape).
keepShape(new BatchedOutputs(() => undefined));
keepShape(new ChunkObserver<undefined, unknown>(undefined as unknown as StreamEventDecoder, undefined as unknown as Subscriber<unknown>, passOn, undefined));
keepRxShapes();
