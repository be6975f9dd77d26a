/**
 * `assembleBlocks()`: Messages API stream events in, deltas, complete blocks and the complete
 * message out. The logic is the reducer in `src/assembly/reducer.ts`; this file only gives each
 * subscription its own state and releases it.
 */
import { Observable, type OperatorFunction, type Subscriber } from 'rxjs';
import { BatchedOutputs } from './internal/batchedOutputs.js';
import { subscribeLinked } from './internal/subscribeLinked.js';
import { assembleStep, createAssemblyState, resetAssemblyState } from '../src/assembly/reducer.js';
import type { AssemblyBatch, AssemblyState } from '../src/assembly/reducer.js';
import type { AssemblyOutput } from '../src/assembly/types.js';
import type { TransportOutput } from '../src/transport/types.js';

/**
 * Folds raw stream events into content blocks and the assistant message.
 *
 * <span class="informal">Deltas stream through for display; a block comes out whole at its
 * `content_block_stop`, the message at `message_stop`.</span>
 *
 * ```
 * source:  -S-b-t-t-x-B-j-j-y-D-M-|      S message_start, b/B content_block_start,
 *                                        t text delta, j input_json_delta, x/y content_block_stop,
 *                                        D message_delta, M message_stop
 * assembleBlocks()
 * output:  -s-o-t-t-k-o-i-i-k-d-m-|      s message_start, o block_start, t text_delta,
 *                                        i tool_input_delta, k block, d message_delta, m message
 * ```
 *
 * Each output is emitted synchronously in the frame of the event that caused it (a
 * `message_start` carrying content is followed by its blocks in the same frame). Applied right
 * after `decodeSSE()`, it decodes and assembles in one stage (the same outputs, one subscriber
 * hop per output instead of two per event). Tool input is
 * kept as a list of chunks and parsed once, at the block's stop, so the cost is linear in the
 * input's size. An input that is not a JSON object yields a `tool_use` block with `input: {}`
 * and an `invalid: { rawInput, reason }` marker (the `message` carries the same block without the
 * marker, safe to replay as history).
 *
 * Blocks of every type are kept: the core four typed, all others (server tool calls and results,
 * compaction, types newer than this version) as their `content_block_start` object plus what
 * their deltas carry. What cannot be applied is reported by a `warning` output, never dropped
 * silently, never fatal.
 *
 * Transport events (`api_retry`, `debug`) pass through. `stream_retry` passes through and resets
 * the state: the failed attempt's partial message is void and a fresh `message_start` follows.
 * `ping` is dropped.
 *
 * Errors: events that cannot form a message (a delta for an unknown index, a stop without a
 * start, a second `message_start`, a delta of the wrong type, ...) error the output with an
 * `AssemblyError` at the offending event; an SSE `error` event errors it with an `ApiError`.
 *
 * **Warning:** the state holds the current message's blocks until `message_stop` (that is the
 * message being built); nothing is kept across messages.
 *
 * ## Example
 * ```ts
 * import { assembleBlocks } from 'rxagent/operators';
 * import { createMessagesClient } from 'rxagent';
 * import { filter } from 'rxjs';
 *
 * const client = createMessagesClient({ baseURL: 'https://api.anthropic.com', apiKey });
 * client.stream(request).pipe(
 *   assembleBlocks(),
 *   filter((event) => event.type === 'block'),
 * ).subscribe((event) => console.log(event.block));
 * ```
 *
 * @see {@link applyEvent} the reducer behind it.
 * @returns An operator from `TransportOutput` to `AssemblyOutput`.
 */
export function assembleBlocks(): OperatorFunction<TransportOutput, AssemblyOutput> {
  return (source$) =>
    new Observable<AssemblyOutput>((subscriber) => {
      // Per subscription: a second subscription assembles its own response (cold).
      const state = createAssemblyState();
      // Release memory on any termination: a partial message may hold megabytes of chunks.
      subscriber.add(() => resetAssemblyState(state));
      // Right after `decodeSSE()` or `client.stream()`: decode and assemble in one stage, one hop per output.
      if (source$ instanceof BatchedOutputs) return source$.subscribeBatches(subscriber, assembleBatchInto, state);
      // Linked before the source runs: an unsubscribe in the middle of a synchronous source
      // (take(3) downstream) stops that source at once.
      subscribeLinked(source$, subscriber, {
        next: (event) => assembleInto(state, event, subscriber),
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}

/** The fused stage's delivery: each decoded event assembled, until the output is closed. */
function assembleBatchInto(state: AssemblyState, events: readonly TransportOutput[], subscriber: Subscriber<AssemblyOutput>): void {
  for (let i = 0; i < events.length && !subscriber.closed; i++) assembleInto(state, events[i] as TransportOutput, subscriber);
}

/** Applies one event and emits what it produced; an event that cannot form a message errors the output. */
function assembleInto(state: AssemblyState, event: TransportOutput, subscriber: Subscriber<AssemblyOutput>): void {
  let step: AssemblyOutput | AssemblyBatch | undefined;
  try {
    step = assembleStep(state, event);
  } catch (error) {
    subscriber.error(error);
    return;
  }
  if (step === undefined) return;
  // One output per event but for the rare batch (content in message_start, a repair).
  if (!Array.isArray(step)) subscriber.next(step as AssemblyOutput);
  else for (const output of step as AssemblyBatch) subscriber.next(output);
}
