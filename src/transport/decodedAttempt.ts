/**
 * One HTTP attempt's response body, decoded and watched in one stage: SSE decoding, the idle
 * timeout, the total deadline, "a complete message makes a late connection fault harmless" and
 * the redaction of debug notes.
 *
 * ```
 * bytes:    -b--b---b-|
 * result:   -s--(dd)-(dx)|        one hop per output, in the frame of the chunk that completed it
 * ```
 *
 * This is `decodeSSE()` → `idleTimeout()` → `withDeadline()` → `map(redact)` → `catchError(…)`
 * with the same outputs and errors, fused: composed from those operators, every stream event
 * paid five subscriber hops and a timer set and cleared, which was most of the client's CPU on
 * a long answer. Here the per-event work is one module-level function over each decoded batch,
 * and the idle clock is read once per network chunk (all outputs of a chunk arrive at the same
 * instant). The result is a `BatchedOutputs`: an `assembleBlocks()` after the client gets each
 * batch in the same stage.
 */
import { catchError, EMPTY, type Observable, type SchedulerLike, type Subscriber, throwError } from 'rxjs';
import { ConnectionError, RequestTimeout, StreamIdleTimeout, redact } from '../errors.js';
import { BatchedOutputs, decodeChunks, type DeliverBatch } from '../../operators/internal/batchedOutputs.js';
import { IdleWatch } from '../../operators/internal/idleWatch.js';
import type { StreamEventDecoderOptions } from './streamEventDecoder.js';
import type { DebugEvent, TransportOutput } from './types.js';

/** What watches one attempt. A bound of 0 or `Infinity` is off. */
export interface AttemptWatchOptions {
  readonly decode: StreamEventDecoderOptions;
  /** No event but pings (and debug notes) for this long fails the attempt with `StreamIdleTimeout`. */
  readonly idleTimeoutMs: number;
  /** The attempt's total time, never restarted: beyond it, `RequestTimeout`. */
  readonly requestTimeoutMs: number;
  /** Where both timers run and whose clock measures idleness. */
  readonly scheduler: SchedulerLike;
  /** Scrubbed from debug notes (they quote what the server sent). */
  readonly apiKey: string;
}

interface AttemptState<C, T> {
  readonly apiKey: string;
  /** `message_stop` was decoded: the message is complete. */
  stopped: boolean;
  readonly idle: IdleWatch | undefined;
  /** Where the watched batches go: the consumer's own delivery. */
  readonly deliver: DeliverBatch<C, T>;
  readonly context: C;
}

export function decodedAttempt(bytes$: Observable<Uint8Array | string>, options: AttemptWatchOptions): BatchedOutputs {
  const { idleTimeoutMs, requestTimeoutMs, scheduler } = options;
  return new BatchedOutputs((subscriber, deliver, context) => {
    // The message is complete: a connection that then drops or hangs costs nothing.
    const fail = (error: unknown): void => (state.stopped ? subscriber.complete() : subscriber.error(error));
    const state: AttemptState<typeof context, unknown> = {
      apiKey: options.apiKey,
      stopped: false,
      idle: isOn(idleTimeoutMs) ? new IdleWatch(idleTimeoutMs, scheduler, () => fail(new StreamIdleTimeout(idleTimeoutMs))) : undefined,
      deliver: deliver as DeliverBatch<typeof context, unknown>,
      context,
    };
    if (state.idle) subscriber.add(() => state.idle?.stop());
    if (isOn(requestTimeoutMs)) subscriber.add(scheduler.schedule(() => fail(new RequestTimeout(requestTimeoutMs)), requestTimeoutMs));
    const body$ = bytes$.pipe(catchError((error: unknown) => (state.stopped && error instanceof ConnectionError ? EMPTY : throwError(() => error))));
    decodeChunks(body$, options.decode, subscriber, deliverWatched, state);
  });
}

const isOn = (ms: number): boolean => ms > 0 && Number.isFinite(ms);

/** Watches a decoded batch, then hands it on; content (not pings, not our debug notes) shows the stream alive. */
function deliverWatched<C, T>(state: AttemptState<C, T>, outputs: readonly TransportOutput[], subscriber: Subscriber<T>): void {
  let alive = false;
  let redactedCopy: TransportOutput[] | undefined; // made only when a note had to change
  for (let i = 0; i < outputs.length; i++) {
    const output = outputs[i] as TransportOutput;
    if (output.type === 'debug') {
      const redacted = redactDebug(output, state.apiKey);
      if (redacted !== output) (redactedCopy ??= [...outputs])[i] = redacted;
      continue;
    }
    if (output.type !== 'ping') alive = true;
    if (output.type === 'message_stop') state.stopped = true;
  }
  state.deliver(state.context, redactedCopy ?? outputs, subscriber);
  if (alive) state.idle?.touch();
}

/** A debug note quoting a server that echoed the key must not leak it. */
function redactDebug(event: DebugEvent, apiKey: string): DebugEvent {
  const text = JSON.stringify(event);
  if (!text.includes(apiKey)) return event;
  return { type: 'debug', message: redact(event.message, apiKey), data: redact(JSON.stringify(event.data) ?? '', apiKey) };
}
