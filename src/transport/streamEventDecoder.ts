/**
 * The state machine under `decodeSSE()`: bytes in, validated Messages API stream events out.
 *
 * One closure per stream (like eventsource-parser's `createParser`): streaming UTF-8 decoding,
 * the SSE parser, at most one `JSON.parse` per event, validation and order checks. No RxJS here,
 * so it is tested and benchmarked on its own.
 *
 * Hot path: `content_block_delta` is most of a response (one per few tokens). The API's fixed
 * layouts of it are recognised as text, without `JSON.parse` (`protocol/deltaLayout.ts`); any
 * other delta gets one `JSON.parse` and a hand-written shape check instead of a zod parse; the
 * rarer events go through their zod schema.
 * Unknown event types are reported as `debug` outputs and dropped, never fatal: the API adds new
 * ones. Unknown block and delta types are passed on (any object with a string `type`): they are
 * content, which assembly keeps and the next request sends back (SPEC §14).
 * A tool_use id repeated within one message, or reused from the history, is renamed
 * (`uniqueToolUseIds.ts`).
 *
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html
 */
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../util/jsonDepth.js';
import { createParser, type EventSourceMessage, type EventSourceParser } from 'eventsource-parser';
import type { z } from 'zod';
import { StreamProtocolError, type RxAgentError } from '../errors.js';
import { KNOWN_STREAM_EVENT_TYPES, streamEventSchemas, type StreamEvent } from '../protocol/events.js';
import { lazySchema } from '../util/lazySchema.js';
import { matchDeltaLayout } from '../protocol/deltaLayout.js';
import { apiErrorFromStreamEvent, quoteStart } from './apiErrorFromResponse.js';
import { createToolUseIdRegistry, type ToolUseIdRegistry } from './uniqueToolUseIds.js';
import type { DebugEvent, TransportOutput } from './types.js';
import { assertNever } from '../util/assertNever.js';
import { issuesText } from '../util/issuesText.js';
import { keepShape } from '../util/keepShape.js';

/** Default cap on what the SSE parser may buffer (a partial line plus an unfinished event). */
export const DEFAULT_MAX_BUFFER_SIZE = 8 * 1024 * 1024;

/**
 * Default cap on one response body, in characters (64 Mi). Far above any real response (a 128k
 * token reply is well under 2 Mi characters of SSE), low enough that a server streaming valid
 * deltas forever fails the stream instead of filling memory with the message being assembled.
 */
export const DEFAULT_MAX_RESPONSE_CHARS = 64 * 1024 * 1024;

export interface StreamEventDecoderOptions {
  /**
   * Maximum characters the SSE parser may buffer across chunks; beyond it the stream fails with
   * `StreamProtocolError('buffer_overflow')` instead of growing without bound. Default 8 Mi.
   */
  readonly maxBufferSize?: number;
  /**
   * Maximum characters of one response body (everything fed to this decoder, SSE framing
   * included). The line-buffer cap above bounds one event; this bounds their sum, which the
   * assembled message holds until `message_stop`. Beyond it the stream fails with a
   * non-retryable `StreamProtocolError('buffer_overflow')` (a retry would stream the same
   * endless reply again). Default 64 Mi; `Infinity` turns it off.
   */
  readonly maxResponseChars?: number;
  /**
   * Whether the API's fixed delta layouts are read without a full `JSON.parse` (default true).
   * The result is the same either way; `false` is the full-parse path the exactness tests
   * compare against.
   */
  readonly fastDeltas?: boolean;
  /**
   * tool_use ids the conversation already used (the ids of the request's history, see
   * `toolUseIdsOf`): a block reusing one is renamed like a repeat within the message.
   */
  readonly takenToolUseIds?: ReadonlySet<string>;
}

/** What one `push` or `end` produced: outputs in order, then possibly the error that ends it. */
export interface DecodeBatch {
  readonly outputs: TransportOutput[];
  readonly error?: RxAgentError;
}

export interface StreamEventDecoder {
  /** Decode one chunk. After an error, further pushes produce nothing. */
  push(chunk: Uint8Array | string): DecodeBatch;
  /** The source ended: flush and check that the message was complete. */
  end(): DecodeBatch;
}

/** Schemas of the rarer events (everything except the hot `content_block_delta`), built at a response's first event. */
const rareEventSchemas = lazySchema((): Readonly<Record<string, z.ZodType<StreamEvent>>> => {
  const schemas = streamEventSchemas();
  return {
    message_start: schemas.messageStartEventSchema,
    content_block_start: schemas.contentBlockStartEventSchema,
    content_block_stop: schemas.contentBlockStopEventSchema,
    message_delta: schemas.messageDeltaEventSchema,
    message_stop: schemas.messageStopEventSchema,
    ping: schemas.pingEventSchema,
    error: schemas.errorEventSchema,
  };
});

/** Where the stream is relative to its one message. */
type Phase = 'before_start' | 'in_message' | 'stopped';

/** How much of a bad event is quoted in an error. */
const QUOTE_CHARS = 120;

/**
 * One decoder's state. The functions below are module-level and take it explicitly, rather than
 * closures made per stream: V8 keeps a function's optimized code only while some instance of
 * it lives, so code in per-stream closures is thrown away at every full GC that falls between
 * two responses and recompiled (on a background thread, but on this process's CPU) for the next
 * one; module-level functions keep theirs. The state is one object literal, whose hidden class
 * lives as long as this module.
 */
interface DecoderState {
  readonly utf8: InstanceType<typeof TextDecoder>;
  /** Until `end()`; then back in the pool. */
  parser: PooledParser | undefined;
  outputs: TransportOutput[];
  error: RxAgentError | undefined;
  phase: Phase;
  readonly maxResponseChars: number;
  readonly fastDeltas: boolean;
  /** Characters fed so far: one addition per chunk, not per event. */
  responseChars: number;
  /** Every later stage keys on tool_use ids: a repeat within one message is renamed here. */
  readonly toolUseIds: ToolUseIdRegistry;
  /** Whether the text fed so far ends in CR, which the parser holds back in case LF follows. */
  endsWithCR: boolean;
}

export function createStreamEventDecoder(options: StreamEventDecoderOptions = {}): StreamEventDecoder {
  const state: DecoderState = {
    utf8: new TextDecoder('utf-8'), // not fatal: invalid bytes become U+FFFD
    parser: undefined,
    outputs: [],
    error: undefined,
    phase: 'before_start',
    maxResponseChars: options.maxResponseChars ?? DEFAULT_MAX_RESPONSE_CHARS,
    fastDeltas: options.fastDeltas ?? true,
    responseChars: 0,
    toolUseIds: createToolUseIdRegistry(options.takenToolUseIds),
    endsWithCR: false,
  };
  state.parser = acquireParser(options.maxBufferSize ?? DEFAULT_MAX_BUFFER_SIZE, state);
  return new DecoderHandle(state);
}

/**
 * The decoder as callers hold it. A class rather than `{ push: (chunk) => push(state, chunk) }`:
 * `push` runs once per network chunk, and a closure made per stream loses its optimized code
 * at the first full GC after its stream (no instance of it survives), so every response after a
 * collection ran it unoptimized and paid TurboFan to compile it again, inlining the whole decode
 * path into it; a prototype method is one function for all streams and keeps its code. One idle
 * instance (below) keeps the instances' hidden class, which that code is built on.
 */
class DecoderHandle implements StreamEventDecoder {
  constructor(private readonly state: DecoderState) {}

  push(chunk: Uint8Array | string): DecodeBatch {
    return push(this.state, chunk);
  }

  end(): DecodeBatch {
    return end(this.state);
  }
}

// Holds no decoder: it is never called, only keeps the hidden class of the handles alive.
keepShape(new DecoderHandle(undefined as unknown as DecoderState));

/**
 * An SSE parser whose callbacks go to whichever decoder holds it.
 *
 * Why a pool: eventsource-parser keeps its per-line work in closures made by `createParser`, and
 * V8 keeps a closure's optimized code only while some instance of it lives. A parser made per
 * response is garbage by the next one, so after every full GC its line splitting ran
 * unoptimized again while TurboFan recompiled it on this process's CPU. A parser handed back at
 * the end of its response (and reset) lives on, and so does its optimized code.
 */
interface PooledParser {
  readonly parser: EventSourceParser;
  readonly maxBufferSize: number;
  holder: DecoderState | undefined;
}

/** Free parsers of the default buffer size; a response that errors or is abandoned keeps its own (it is then garbage). */
const FREE_PARSERS: PooledParser[] = [];
/** More than this many responses ending at once would only grow the pool, not speed anything. */
const MAX_FREE_PARSERS = 32;

function acquireParser(maxBufferSize: number, holder: DecoderState): PooledParser {
  const pooled = maxBufferSize === DEFAULT_MAX_BUFFER_SIZE ? FREE_PARSERS.pop() : undefined;
  if (pooled !== undefined) {
    pooled.holder = holder;
    return pooled;
  }
  const entry: { parser: EventSourceParser | undefined; readonly maxBufferSize: number; holder: DecoderState | undefined } = { parser: undefined, maxBufferSize, holder };
  entry.parser = createParser({
    maxBufferSize,
    onEvent: (message) => {
      if (entry.holder !== undefined) onEvent(entry.holder, message);
    },
    onError: (parseError) => {
      // Unknown fields and bad `retry:` values are ignorable by the SSE spec; overflow is not.
      if (entry.holder !== undefined && parseError.type === 'max-buffer-size-exceeded') {
        fail(entry.holder, new StreamProtocolError('buffer_overflow', `stream event exceeds the buffer cap: ${parseError.message}`, false));
      }
    },
  });
  return entry as PooledParser;
}

/** Hands the decoder's parser back (reset: nothing of this response stays in it). */
function releaseParser(s: DecoderState): void {
  const entry = s.parser;
  if (entry === undefined) return;
  s.parser = undefined;
  entry.holder = undefined;
  entry.parser.reset();
  if (entry.maxBufferSize === DEFAULT_MAX_BUFFER_SIZE && FREE_PARSERS.length < MAX_FREE_PARSERS) FREE_PARSERS.push(entry);
}

function fail(s: DecoderState, e: RxAgentError): void {
  if (s.error === undefined) s.error = e;
}

function debug(s: DecoderState, message: string, data?: unknown): void {
  const event: DebugEvent = data === undefined ? { type: 'debug', message } : { type: 'debug', message, data };
  s.outputs.push(event);
}

function invalid(s: DecoderState, type: string, detail: string, data: string): void {
  fail(s, new StreamProtocolError('invalid_event', `invalid ${type} event (${detail}): ${quoteStart(data, QUOTE_CHARS)}`, false));
}

function outOfOrder(s: DecoderState, type: string): void {
  const where = s.phase === 'before_start' ? 'before message_start' : 'after message_stop';
  fail(s, new StreamProtocolError('out_of_order', `stream event ${type} arrived ${where}`, false));
}

function onEvent(s: DecoderState, message: EventSourceMessage): void {
  if (s.error !== undefined) return;
  const name = message.event;
  // The common name is compared first so the hot path skips the set lookup.
  if (name !== undefined && name !== 'content_block_delta' && !KNOWN_STREAM_EVENT_TYPES.has(name)) {
    debug(s, `ignored unknown stream event type "${name}"`, { event: name, data: quoteStart(message.data, QUOTE_CHARS) });
    return;
  }
  // The API's own delta layouts are read without a full parse (exactly what it would give).
  const layout = s.fastDeltas ? matchDeltaLayout(message.data) : undefined;
  if (layout !== undefined) {
    if (s.phase !== 'in_message') return outOfOrder(s, 'content_block_delta');
    s.outputs.push(layout);
    return;
  }
  // Deltas are read field by field; any other event is kept whole, so its depth must be sane.
  if (name !== 'content_block_delta' && jsonNestsDeeperThan(message.data)) {
    return invalid(s, name ?? '(unnamed)', `nests deeper than ${MAX_JSON_DEPTH} levels`, message.data);
  }
  let value: unknown;
  try {
    value = JSON.parse(message.data);
  } catch {
    fail(
      s,
      new StreamProtocolError(
        'invalid_json',
        `stream event ${name ?? '(unnamed)'} is not JSON: ${quoteStart(message.data, QUOTE_CHARS) || '(empty)'}`,
        false,
      ),
    );
    return;
  }
  if (typeof value !== 'object' || value === null) return invalid(s, name ?? '(unnamed)', 'not an object', message.data);
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string') return invalid(s, name ?? '(unnamed)', 'no string "type"', message.data);
  if (type === 'content_block_delta') onDelta(s, value as DeltaShape, message.data);
  else onRareEvent(s, type, value, message.data);
}

/** The hot path: a shape check by hand, no zod, no copy. */
function onDelta(s: DecoderState, value: DeltaShape, raw: string): void {
  const index = value.index;
  const delta = value.delta;
  if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) {
    return invalid(s, 'content_block_delta', '"index" is not a non-negative integer', raw);
  }
  if (typeof delta !== 'object' || delta === null) return invalid(s, 'content_block_delta', '"delta" is not an object', raw);
  if (s.phase !== 'in_message') return outOfOrder(s, 'content_block_delta');
  // Direct property reads per case: a computed `delta[field]` would be a slower keyed load.
  let ok: boolean;
  switch (delta.type) {
    case 'text_delta':
      ok = typeof delta.text === 'string';
      break;
    case 'input_json_delta':
      ok = typeof delta.partial_json === 'string';
      break;
    case 'thinking_delta':
      ok = typeof delta.thinking === 'string';
      break;
    case 'signature_delta':
      ok = typeof delta.signature === 'string';
      break;
    case 'citations_delta':
      // The citation's own shape is not ours to check (the schema says unknown).
      ok = 'citation' in delta;
      break;
    default:
      // A delta type newer than this version: assembly applies it generically.
      if (typeof delta.type !== 'string') return invalid(s, 'content_block_delta', '"delta.type" is not a string', raw);
      ok = true;
  }
  if (!ok) return invalid(s, 'content_block_delta', `${delta.type as string} without its ${DELTA_FIELDS[delta.type as string]} field`, raw);
  s.outputs.push(value as unknown as StreamEvent);
}

/**
 * The events whose whole schema is their type and at most an index (`content_block_stop`,
 * `message_stop`, `ping`: three of the seven or so such events of every response), checked by
 * hand and passed on as parsed, like the deltas: zod would copy each. Only a value its schema
 * surely accepts passes here; anything else goes through the schema, which words the failure.
 */
function isPlainSimpleEvent(type: string, value: { readonly index?: unknown }): boolean {
  switch (type) {
    case 'content_block_stop': {
      const index = value.index;
      return typeof index === 'number' && Number.isSafeInteger(index) && index >= 0;
    }
    case 'message_stop':
    case 'ping':
      return true;
    default:
      return false;
  }
}

function onRareEvent(s: DecoderState, type: string, value: object, raw: string): void {
  const schema = rareEventSchemas()[type];
  if (schema === undefined) {
    debug(s, `ignored unknown stream event type "${type}"`, value);
    return;
  }
  let event: StreamEvent;
  if (isPlainSimpleEvent(type, value)) {
    event = value as StreamEvent;
  } else {
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      return invalid(s, type, issuesText(parsed.error.issues, { whole: '(root)', max: 3 }), raw);
    }
    event = parsed.data;
  }
  if (event.type === 'error') {
    // The server's own word beats our order bookkeeping, wherever it arrives.
    fail(s, apiErrorFromStreamEvent(event.error));
    return;
  }
  switch (s.phase) {
    case 'before_start':
      if (event.type === 'message_start') s.phase = 'in_message';
      else if (event.type !== 'ping') return outOfOrder(s, type);
      break;
    case 'in_message':
      if (event.type === 'message_stop') s.phase = 'stopped';
      break;
    case 'stopped':
      return outOfOrder(s, type);
    default:
      assertNever(s.phase, 'decoder phase');
  }
  // The note follows its event: the renamed block is what it talks about.
  if (event.type === 'message_start') {
    const unique = s.toolUseIds.onMessageStart(event);
    s.outputs.push(unique.event, ...unique.notes);
  } else if (event.type === 'content_block_start') {
    const unique = s.toolUseIds.onBlockStart(event);
    s.outputs.push(unique.event);
    if (unique.note !== undefined) s.outputs.push(unique.note);
  } else {
    s.outputs.push(event);
  }
}

function take(s: DecoderState): DecodeBatch {
  const outputs = s.outputs;
  const batch: DecodeBatch = s.error === undefined ? { outputs } : { outputs, error: s.error };
  s.outputs = [];
  return batch;
}

function feed(s: DecoderState, text: string): void {
  if (s.error !== undefined || text.length === 0) return;
  s.responseChars += text.length;
  if (s.responseChars > s.maxResponseChars) {
    // Nothing of the chunk is parsed: the events before it were already emitted.
    fail(
      s,
      new StreamProtocolError(
        'buffer_overflow',
        `the response exceeds the cap of ${s.maxResponseChars} characters (maxResponseChars); the stream was stopped`,
        false,
      ),
    );
    return;
  }
  if (s.parser === undefined) return; // fed after end(): nothing more can come
  s.endsWithCR = text.charCodeAt(text.length - 1) === 13;
  s.parser.parser.feed(text);
}

function push(s: DecoderState, chunk: Uint8Array | string): DecodeBatch {
  if (s.error !== undefined) return { outputs: [] };
  feed(s, typeof chunk === 'string' ? chunk : s.utf8.decode(chunk, { stream: true }));
  return take(s);
}

function end(s: DecoderState): DecodeBatch {
  if (s.error !== undefined) return { outputs: [] };
  feed(s, s.utf8.decode()); // a truncated multi-byte sequence at the very end becomes U+FFFD
  // A final CR is a complete line end; an LF after it only turns it into CRLF (no extra line).
  if (s.endsWithCR) feed(s, '\n');
  releaseParser(s);
  // An event without its terminating blank line is discarded, as the SSE spec says.
  if (s.error === undefined && s.phase !== 'stopped') {
    fail(
      s,
      new StreamProtocolError(
        'ended_before_message_stop',
        s.phase === 'before_start' ? 'the stream ended before message_start' : 'the stream ended before message_stop',
      ),
    );
  }
  return take(s);
}

interface DeltaShape {
  readonly index?: unknown;
  readonly delta?: {
    readonly type?: unknown;
    readonly text?: unknown;
    readonly partial_json?: unknown;
    readonly thinking?: unknown;
    readonly signature?: unknown;
  } | null;
}

/** For error messages: the string field each delta type must carry. */
const DELTA_FIELDS: Readonly<Record<string, string>> = {
  text_delta: '"text"',
  input_json_delta: '"partial_json"',
  thinking_delta: '"thinking"',
  signature_delta: '"signature"',
  citations_delta: '"citation"',
};
