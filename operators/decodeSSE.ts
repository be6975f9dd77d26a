/** `decodeSSE()`: an SSE body in, validated stream events out (the RxJS shell over `createStreamEventDecoder`). */
import { concat, defer, throwError, type ObservableInput, type OperatorFunction } from 'rxjs';
import { concatMap } from 'rxjs/operators';
import { createStreamEventDecoder, type DecodeBatch, type StreamEventDecoderOptions } from '../src/transport/streamEventDecoder.js';
import type { TransportOutput } from '../src/transport/types.js';

/** Options of {@link decodeSSE}: the parser's buffer cap and the cap on the whole body. */
export type DecodeSSEOptions = StreamEventDecoderOptions;

/**
 * Decodes a Messages API SSE body into validated stream events.
 * <span class="informal">Bytes (or text) in, `StreamEvent`s and `debug` notes out; protocol faults as typed errors.</span>
 *
 * ```
 * source:   -b--b---b-|            (byte chunks, split anywhere, even inside a UTF-8 character)
 * decodeSSE()
 * result:   -s--(dd)-(sx)|         (events in the frame of the chunk that completed them)
 * ```
 *
 * Errors (all `RxAgentError`s): `StreamProtocolError` with type `invalid_json` (quotes the first
 * characters), `invalid_event`, `out_of_order` (an event before `message_start` or after
 * `message_stop`), `ended_before_message_stop` (the source completed early) or `buffer_overflow` (one event
 * outgrew the line buffer, or the whole body outgrew `maxResponseChars`);
 * an SSE `error` event becomes an `ApiError`, retryable exactly like its HTTP twin. Events decoded
 * before the fault are emitted first, so nothing is lost.
 *
 * Cold and linear: each subscription gets its own decoder; each byte is decoded once and each event
 * parsed once.
 *
 * ## Example
 * ```ts
 * import { from } from 'rxjs';
 * import { decodeSSE } from 'rxagent/operators';
 *
 * from(['event: message_start\ndata: {"type":"message_start", ...}\n\n', ...]).pipe(decodeSSE())
 *   .subscribe((event) => console.log(event.type));
 * ```
 *
 * @see {@link createMessagesClient} which applies it to each response body.
 * @param options `maxBufferSize`: the SSE parser's buffer cap, in characters (default 8 Mi);
 *   `maxResponseChars`: the cap on the whole body, in characters (default 64 Mi). Either overflow
 *   is a non-retryable `StreamProtocolError('buffer_overflow')`.
 * @returns An operator from body chunks to `TransportOutput`.
 */
export function decodeSSE(options: DecodeSSEOptions = {}): OperatorFunction<Uint8Array | string, TransportOutput> {
  return (source$) =>
    defer(() => {
      const decoder = createStreamEventDecoder(options); // per subscription: cold
      return concat(
        source$.pipe(concatMap((chunk) => emitBatch(decoder.push(chunk)))),
        defer(() => emitBatch(decoder.end())),
      );
    });
}

/** A batch as an inner source: a plain array on the common path (cheapest for `concatMap`), then its error if any. */
function emitBatch(batch: DecodeBatch): ObservableInput<TransportOutput> {
  const { outputs, error } = batch;
  return error === undefined ? outputs : concat(outputs, throwError(() => error));
}
