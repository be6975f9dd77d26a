/** `decodeSSE()`: an SSE body in, validated stream events out (the RxJS shell over `createStreamEventDecoder`). */
import type { OperatorFunction } from 'rxjs';
import { decodedSSE } from './internal/batchedOutputs.js';
import type { StreamEventDecoderOptions } from '../src/transport/streamEventDecoder.js';
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
 * parsed once (the API's fixed delta layouts without a full `JSON.parse`, exactly as it would
 * decode them: see `protocol/deltaLayout.ts`). One subscriber hop per event; an `assembleBlocks()`
 * applied right after it decodes and assembles in one stage (same outputs, one hop fewer).
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
 *   is a non-retryable `StreamProtocolError('buffer_overflow')`. `fastDeltas: false` parses every
 *   event in full (same result, slower: the reference of the exactness tests).
 *   `takenToolUseIds`: the tool_use ids of the request's history; a block reusing one is renamed
 *   (`x__dup2`) like a repeat within the response, with a `debug` note.
 * @returns An operator from body chunks to `TransportOutput`.
 */
export function decodeSSE(options: DecodeSSEOptions = {}): OperatorFunction<Uint8Array | string, TransportOutput> {
  // Batched, so an `assembleBlocks()` right after it runs in the same stage (see batchedOutputs.ts).
  return (source$) => decodedSSE(source$, options);
}
