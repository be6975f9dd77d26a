/**
 * The assembly reducer: folds Messages API stream events into deltas, complete content blocks and
 * the complete assistant message. No RxJS here; `operators/assembleBlocks.ts` is a thin shell.
 *
 * Why the state is mutable (owned by one subscription) instead of copied per event: a long
 * response is tens of thousands of deltas. Copying the block table or re-concatenating a growing
 * string on every delta makes assembly quadratic in the response size. Here each delta is an O(1)
 * `push` of its chunk, each block's text is joined once at its `content_block_stop`, and each tool
 * input is `JSON.parse`d once, there. The step function is still pure in the sense that matters
 * for testing: its only effect is on the state object passed in, and the same events always give
 * the same outputs.
 *
 * Every input event yields at most one output (a delta, a block, a message, or the transport
 * event itself), which lets the operator use `map` + `filter` instead of an inner Observable per
 * event.
 */
import { ApiError, AssemblyError } from '../errors.js';
import type {
  AssistantContentBlock,
  AssistantMessage,
  StopReason,
  Usage,
} from '../protocol/content.js';
import { isCoreBlockStart, KNOWN_DELTA_TYPES, type BlockStart, type KnownDelta, type StreamEvent } from '../protocol/events.js';
import type { TransportOutput } from '../transport/types.js';
import { assertNever } from '../util/assertNever.js';
import { MAX_JSON_DEPTH, valueNestsDeeperThan } from '../util/jsonDepth.js';
import { keepShape } from '../util/keepShape.js';
import { applyFields, applyToOtherBlock, completeOtherBlock, openOtherBlock, type OpenOtherBlock } from './otherBlock.js';
import { isInvalidToolUse } from './types.js';
import type { AssemblyOutput, AssemblyWarningEvent, InvalidToolUseBlock } from './types.js';

/**
 * A block between its `content_block_start` and its `content_block_stop`. The core types keep
 * their text as chunks (joined once at the stop); `extra` holds fields that deltas of a type we
 * do not know added to them. Every other type is assembled generically (`otherBlock.ts`).
 */
type OpenBlock =
  | (CoreOpenBlock & { extra: Record<string, unknown> | undefined })
  | OpenOtherBlock;
type CoreOpenBlock =
  | { readonly type: 'text'; readonly start: BlockStart & { type: 'text' }; readonly chunks: string[]; citations: unknown[] | undefined }
  | { readonly type: 'thinking'; readonly start: BlockStart & { type: 'thinking' }; readonly chunks: string[]; readonly signature: string[] }
  | { readonly type: 'redacted_thinking'; readonly start: BlockStart & { type: 'redacted_thinking' } }
  | {
      readonly type: 'tool_use';
      readonly start: BlockStart & { type: 'tool_use' };
      readonly chunks: string[];
      receivedChars: number;
    };

/** Fields of the core blocks that their own deltas build: a delta of another type may not touch them. */
const CORE_FIELDS: ReadonlySet<string> = new Set(['type', 'text', 'thinking', 'signature', 'data', 'id', 'name', 'input', 'citations']);

type MessageHead = Omit<AssistantMessage, 'content' | 'stop_reason' | 'stop_sequence' | 'usage'>;

/** Per-subscription assembly state. Create with `createAssemblyState()`; treat as opaque. */
export interface AssemblyState {
  /** `idle` before message_start, `streaming` until message_stop, then `done`. */
  phase: 'idle' | 'streaming' | 'done';
  head: MessageHead | undefined;
  /** Blocks still receiving deltas, by index. */
  readonly open: Map<number, OpenBlock>;
  /** Completed blocks, by index; put in index order once, at message_stop. */
  readonly done: Map<number, AssistantContentBlock>;
  stopReason: StopReason | null;
  stopSequence: string | null;
  usage: Usage;
  /** `container`, `stop_details`, `context_management` of the latest message_delta (message fields). */
  extras: Record<string, unknown>;
}

/** A fresh assembly state: one per response (one per subscription of `assembleBlocks()`). */
export function createAssemblyState(): AssemblyState {
  return {
    phase: 'idle',
    head: undefined,
    open: new Map(),
    done: new Map(),
    stopReason: null,
    stopSequence: null,
    usage: {},
    extras: {},
  };
}

/** Back to the empty state, in place (a `stream_retry` voids the partial message). */
export function resetAssemblyState(state: AssemblyState): void {
  state.phase = 'idle';
  state.head = undefined;
  state.open.clear();
  state.done.clear();
  state.stopReason = null;
  state.stopSequence = null;
  state.usage = {};
  state.extras = {};
}

/** What one event did to the assembly: the outputs it produced, in order. */
export interface AssemblyStep {
  readonly state: AssemblyState;
  readonly emitted: AssemblyOutput[];
}

/**
 * Applies one event: the reducer in the `(state, event) => { state, emitted }` shape.
 * The returned state is the same object, updated in place (see the file comment for why).
 * @throws AssemblyError when the events cannot form a message; ApiError for an SSE `error` event.
 */
export function applyEvent(state: AssemblyState, event: TransportOutput): AssemblyStep {
  const out = assembleStep(state, event);
  return { state, emitted: out === undefined ? [] : Array.isArray(out) ? out : [out as AssemblyOutput] };
}

/**
 * Several outputs of one event, in order: a `message_start` that carries content (its blocks
 * follow it), a `message_stop` that closes blocks left open, a repaired block index (the warning
 * comes first). Never an `AssemblyOutput` itself (those are objects, not arrays).
 */
export type AssemblyBatch = readonly AssemblyOutput[];

/**
 * The hot-path form of `applyEvent`: one output, a batch (rare), or `undefined` for none.
 * @throws AssemblyError when the events cannot form a message; ApiError for an SSE `error` event.
 */
export function assembleStep(state: AssemblyState, event: TransportOutput): AssemblyOutput | AssemblyBatch | undefined {
  switch (event.type) {
    case 'content_block_delta':
      return onDelta(state, event);
    case 'content_block_start':
      return onBlockStart(state, event);
    case 'content_block_stop':
      return onBlockStop(state, event.index);
    case 'message_start':
      return onMessageStart(state, event);
    case 'message_delta':
      return onMessageDelta(state, event);
    case 'message_stop':
      return onMessageStop(state);
    case 'ping':
      return undefined;
    case 'error':
      // The transport turns SSE error events into ApiErrors; one that still reaches us must not
      // be folded into a message as if nothing happened.
      throw new ApiError(
        undefined,
        event.error.type,
        event.error.message,
        RETRYABLE_ERROR_TYPES.has(event.error.type),
      );
    case 'stream_retry':
      resetAssemblyState(state);
      return event;
    case 'api_retry':
    case 'debug':
      return event;
    default:
      return assertNever(event, 'stream event');
  }
}

const RETRYABLE_ERROR_TYPES: ReadonlySet<string> = new Set(['overloaded_error', 'api_error', 'rate_limit_error']);

type EventOf<T extends StreamEvent['type']> = Extract<StreamEvent, { type: T }>;

function requireStreaming(state: AssemblyState, what: string): void {
  if (state.phase === 'streaming') return;
  if (state.phase === 'idle') {
    throw new AssemblyError('event_before_message_start', `${what} arrived before message_start`);
  }
  throw new AssemblyError('event_after_message_stop', `${what} arrived after message_stop`);
}

function onMessageStart(state: AssemblyState, event: EventOf<'message_start'>): AssemblyOutput | AssemblyBatch {
  if (state.phase !== 'idle') {
    throw new AssemblyError('duplicate_message_start', 'a second message_start arrived in one response');
  }
  // Keep every field the API sent (loose schema) except the ones assembly owns.
  const { content, stop_reason, stop_sequence, usage, ...head } = event.message;
  state.phase = 'streaming';
  state.head = head;
  state.stopReason = stop_reason;
  state.stopSequence = stop_sequence ?? null;
  state.usage = { ...usage };
  const started: AssemblyOutput = { type: 'message_start', id: head.id, model: head.model, usage: state.usage };
  if (content.length === 0) return started;
  // Programmatic tool calling sends complete blocks here (a tool_use called from code execution):
  // they are the message's first blocks, emitted as if each had streamed and stopped.
  const out: AssemblyOutput[] = [started];
  content.forEach((block, index) => {
    out.push(...completeAt(state, index, prefilledBlock(block as unknown as BlockStart)));
  });
  return out;
}

/** A block that arrived whole: the same completion as a streamed one without deltas. */
function prefilledBlock(block: BlockStart): OpenBlock {
  return openBlock(block);
}

function onBlockStart(state: AssemblyState, event: EventOf<'content_block_start'>): AssemblyOutput | AssemblyBatch {
  requireStreaming(state, `content_block_start for index ${event.index}`);
  let index = event.index;
  let warning: AssemblyWarningEvent | undefined;
  if (state.open.has(index) || state.done.has(index)) {
    const next = nextFreeIndex(state);
    // Seen in a recording: a start carrying the index of the block before it (already stopped),
    // its deltas and stop carrying the right one. Taking the next index keeps every block.
    if (state.open.has(index) || !isNextIndexUnused(state, index)) {
      throw new AssemblyError('duplicate_block_start', `content_block_start for index ${index}, which was already started`);
    }
    warning = {
      type: 'warning',
      message: `content_block_start for index ${index}, which was already stopped; taken as index ${next}`,
      data: event.content_block,
    };
    index = next;
  }
  const start = event.content_block;
  state.open.set(index, openBlock(start));
  const started: AssemblyOutput = { type: 'block_start', index, block: start };
  return warning === undefined ? started : [warning, started];
}

function nextFreeIndex(state: AssemblyState): number {
  let max = -1;
  for (const key of state.open.keys()) max = Math.max(max, key);
  for (const key of state.done.keys()) max = Math.max(max, key);
  return max + 1;
}

/** The repeated index is the latest one and nothing is open: the start most likely means the next. */
function isNextIndexUnused(state: AssemblyState, index: number): boolean {
  return state.open.size === 0 && nextFreeIndex(state) === index + 1;
}

function openBlock(start: BlockStart): OpenBlock {
  if (!isCoreBlockStart(start)) return openOtherBlock(start);
  switch (start.type) {
    case 'text':
      return { type: 'text', start, chunks: start.text ? [start.text] : [], citations: undefined, extra: undefined };
    case 'thinking':
      return {
        type: 'thinking',
        start,
        chunks: start.thinking ? [start.thinking] : [],
        signature: start.signature ? [start.signature] : [],
        extra: undefined,
      };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', start, extra: undefined };
    case 'tool_use':
      return { type: 'tool_use', start, chunks: [], receivedChars: 0, extra: undefined };
    default:
      return assertNever(start, 'content block type');
  }
}

function onDelta(state: AssemblyState, event: EventOf<'content_block_delta'>): AssemblyOutput | undefined {
  const { index } = event;
  const delta: KnownDelta = event.delta;
  const block = state.open.get(index);
  if (block === undefined) {
    requireStreaming(state, `content_block_delta for index ${index}`);
    throw new AssemblyError(
      'delta_for_unknown_block',
      state.done.has(index)
        ? `${delta.type} for index ${index}, which was already stopped`
        : `${delta.type} for index ${index}, which was never started`,
    );
  }
  if (block.type === 'other') return onOtherDelta(block, index, delta);
  if (!KNOWN_DELTA_TYPES.has(delta.type)) return onNewDeltaOnCoreBlock(block, index, delta);
  switch (delta.type) {
    case 'text_delta':
      if (block.type !== 'text') throw mismatch(delta.type, index, block.type);
      block.chunks.push(delta.text);
      return { type: 'text_delta', index, text: delta.text };
    case 'thinking_delta':
      if (block.type !== 'thinking') throw mismatch(delta.type, index, block.type);
      block.chunks.push(delta.thinking);
      return { type: 'thinking_delta', index, thinking: delta.thinking };
    case 'signature_delta':
      if (block.type !== 'thinking') throw mismatch(delta.type, index, block.type);
      // Appended, not replaced: a signature split over two deltas must come out whole.
      block.signature.push(delta.signature);
      return undefined;
    case 'input_json_delta':
      if (block.type !== 'tool_use') throw mismatch(delta.type, index, block.type);
      block.chunks.push(delta.partial_json);
      block.receivedChars += delta.partial_json.length;
      return {
        type: 'tool_input_delta',
        index,
        id: block.start.id,
        name: block.start.name,
        partialJson: delta.partial_json,
        receivedChars: block.receivedChars,
      };
    case 'citations_delta':
      if (block.type !== 'text') throw mismatch(delta.type, index, block.type);
      (block.citations ??= []).push(delta.citation);
      return undefined;
    default:
      return assertNever(delta, 'delta type');
  }
}

/** A delta on a generically assembled block; a text delta still streams for display. */
function onOtherDelta(block: OpenOtherBlock, index: number, delta: KnownDelta): AssemblyOutput | undefined {
  const problem = applyToOtherBlock(block, delta);
  if (problem !== undefined) return notApplied(index, block.fields['type'] as string, delta, problem);
  if (delta.type === 'text_delta') return { type: 'text_delta', index, text: delta.text };
  if (delta.type === 'input_json_delta') {
    const { id, name } = block.fields;
    return {
      type: 'tool_input_delta',
      index,
      id: typeof id === 'string' ? id : '',
      name: typeof name === 'string' ? name : '',
      partialJson: delta.partial_json,
      receivedChars: block.receivedChars,
    };
  }
  return undefined;
}

/** A delta type newer than this version on a core block: its fields go beside the block's own. */
function onNewDeltaOnCoreBlock(block: OpenBlock & { extra: unknown }, index: number, delta: Readonly<Record<string, unknown>>): AssemblyOutput | undefined {
  const type = delta['type'] as string;
  const owned = Object.keys(delta).find((key) => key !== 'type' && CORE_FIELDS.has(key));
  if (owned !== undefined) return notApplied(index, block.type, delta, `field "${owned}" belongs to the ${block.type} block itself`);
  const extra = ((block as { extra: Record<string, unknown> | undefined }).extra ??= {});
  const problem = applyFields(extra, delta);
  return problem === undefined ? undefined : notApplied(index, block.type, delta, `${type}: ${problem}`);
}

function notApplied(index: number, blockType: string, delta: unknown, problem: string): AssemblyWarningEvent {
  return {
    type: 'warning',
    message: `a delta for the ${blockType} block at index ${index} could not be applied (${problem}); the block is kept without it`,
    data: delta,
  };
}

function mismatch(deltaType: string, index: number, blockType: string): AssemblyError {
  return new AssemblyError('delta_type_mismatch', `${deltaType} for index ${index}, a ${blockType} block`);
}

function onBlockStop(state: AssemblyState, index: number): AssemblyOutput | AssemblyBatch {
  const open = state.open.get(index);
  if (open === undefined) {
    requireStreaming(state, `content_block_stop for index ${index}`);
    throw new AssemblyError(
      'stop_without_start',
      state.done.has(index)
        ? `content_block_stop for index ${index}, which was already stopped`
        : `content_block_stop for index ${index}, which was never started`,
    );
  }
  state.open.delete(index);
  const out = completeAt(state, index, open);
  return out.length === 1 ? out[0]! : out;
}

/** Completes a block into `done`; the `block` event, after a warning when its input was unusable. */
function completeAt(state: AssemblyState, index: number, open: OpenBlock): AssemblyOutput[] {
  if (open.type === 'other') {
    const { block, problem } = completeOtherBlock(open);
    const completed = block as unknown as AssistantContentBlock;
    state.done.set(index, completed);
    const event: AssemblyOutput = { type: 'block', index, block: completed };
    if (problem === undefined) return [event];
    return [{ type: 'warning', message: `the ${String(block['type'])} block at index ${index} is kept with its start's input: ${problem}`, data: block }, event];
  }
  const completed = completeBlock(open);
  const withExtra = open.extra === undefined ? completed : ({ ...completed, ...open.extra } as typeof completed);
  // The message must stay safe to replay as history: an invalid tool_use goes in without its
  // `invalid` marker (the API rejects unknown fields); the `block` event keeps the marker.
  state.done.set(index, isInvalidToolUse(withExtra) ? withoutInvalidMarker(withExtra) : withExtra);
  return [{ type: 'block', index, block: withExtra }];
}

function withoutInvalidMarker(block: InvalidToolUseBlock): AssistantContentBlock {
  const { invalid: _invalid, ...clean } = block;
  return clean;
}

function completeBlock(open: CoreOpenBlock): AssistantContentBlock | InvalidToolUseBlock {
  switch (open.type) {
    case 'text': {
      const block = { ...open.start, text: open.chunks.join('') };
      return open.citations === undefined ? block : { ...block, citations: open.citations };
    }
    case 'thinking':
      return { ...open.start, thinking: open.chunks.join(''), signature: open.signature.join('') };
    case 'redacted_thinking':
      return { ...open.start };
    case 'tool_use':
      return completeToolUse(open.start, open.chunks);
    default:
      return assertNever(open, 'open block');
  }
}

/** Joins and parses the input once. Never throws: bad input becomes an `InvalidToolUseBlock`. */
function completeToolUse(
  start: BlockStart & { type: 'tool_use' },
  chunks: readonly string[],
): AssistantContentBlock | InvalidToolUseBlock {
  const base = { ...start };
  if (chunks.length === 0) {
    // No deltas: the start's input is the whole input (normally `{}`).
    if (isPlainObject(start.input) && valueNestsDeeperThan(start.input)) {
      return invalidToolUse(base, '', `input nests deeper than ${MAX_JSON_DEPTH} levels`);
    }
    return { ...base, input: isPlainObject(start.input) ? start.input : {} };
  }
  const raw = chunks.length === 1 ? (chunks[0] as string) : chunks.join('');
  if (raw.length === 0) return { ...base, input: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    return invalidToolUse(base, raw, `input is not valid JSON: ${(error as Error).message}`);
  }
  if (!isPlainObject(parsed)) {
    const kind = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`;
    return invalidToolUse(base, raw, `input must be a JSON object, got ${kind}`);
  }
  // Parsing copes with any depth (V8's JSON.parse is iterative), but writing the transcript and
  // the next request would not. Checked on the parsed value: a tool input is a few objects
  // around long strings, so this walks a handful of nodes where a scan of the text would read
  // every character of it again.
  if (valueNestsDeeperThan(parsed)) return invalidToolUse(base, raw.slice(0, 200), `input nests deeper than ${MAX_JSON_DEPTH} levels`);
  return { ...base, input: parsed };
}

function invalidToolUse(
  base: BlockStart & { type: 'tool_use' },
  rawInput: string,
  reason: string,
): InvalidToolUseBlock {
  return { ...base, input: {}, invalid: { rawInput, reason } };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function onMessageDelta(state: AssemblyState, event: EventOf<'message_delta'>): AssemblyOutput {
  requireStreaming(state, 'message_delta');
  if (event.delta.stop_reason !== undefined) state.stopReason = event.delta.stop_reason;
  if (event.delta.stop_sequence !== undefined) state.stopSequence = event.delta.stop_sequence;
  if (event.usage !== undefined) state.usage = mergeUsage(state.usage, event.usage);
  // Message fields the non-streaming body has at its top level; null is a value here (kept).
  const { container, stop_details } = event.delta;
  if (container !== undefined) state.extras['container'] = container;
  if (stop_details !== undefined) state.extras['stop_details'] = stop_details;
  if (event.context_management !== undefined) state.extras['context_management'] = event.context_management;
  return {
    type: 'message_delta',
    stopReason: state.stopReason,
    stopSequence: state.stopSequence,
    usage: state.usage,
  };
}

/** Delta usage counters are cumulative totals: present ones overwrite, absent ones are kept. */
function mergeUsage(base: Usage, delta: Usage): Usage {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(delta)) {
    if (value !== undefined && value !== null) merged[key] = value;
  }
  return merged as Usage;
}

function onMessageStop(state: AssemblyState): AssemblyOutput | AssemblyBatch {
  requireStreaming(state, 'message_stop');
  // A block without its content_block_stop (seen in a recording cut at max_tokens): closed here,
  // with a warning, so the message keeps it (a cut tool input becomes an invalid tool_use).
  const closed: AssemblyOutput[] = [];
  for (const [index, open] of [...state.open.entries()].sort((a, b) => a[0] - b[0])) {
    closed.push({ type: 'warning', message: `message_stop arrived while the block at index ${index} had no content_block_stop; closed there`, data: { index } });
    closed.push(...completeAt(state, index, open));
  }
  state.open.clear();
  const head = state.head as MessageHead;
  const content = [...state.done.entries()].sort((a, b) => a[0] - b[0]).map(([, block]) => block);
  const message: AssistantMessage = isPlainHead(head) && Object.keys(state.extras).length === 0
    ? plainMessage(head, content, state)
    : {
        ...head,
        content,
        stop_reason: state.stopReason,
        stop_sequence: state.stopSequence,
        ...state.extras,
        usage: state.usage,
      };
  state.phase = 'done';
  // The blocks now live in the message; drop our references so a long-lived state holds nothing.
  state.done.clear();
  const done: AssemblyOutput = { type: 'message', message };
  return closed.length === 0 ? done : [...closed, done];
}

/** Whether the head is the usual one, exactly `id, type, role, model` in the API's order. */
function isPlainHead(head: MessageHead): boolean {
  const keys = Object.keys(head);
  return keys.length === 4 && keys[0] === 'id' && keys[1] === 'type' && keys[2] === 'role' && keys[3] === 'model';
}

/**
 * The usual message (a plain head, no message_delta extras) as one literal: the same keys in the
 * same order as the spread below builds, without copying the head (an object left by the
 * message_start's rest destructuring) through the generic spread.
 */
function plainMessage(head: MessageHead, content: AssistantContentBlock[], state: AssemblyState): AssistantMessage {
  return {
    id: head.id,
    type: head.type,
    role: head.role,
    model: head.model,
    content,
    stop_reason: state.stopReason,
    stop_sequence: state.stopSequence,
    usage: state.usage,
  };
}

/*
 * One idle open block of each core type, kept for the life of the process. The delta path
 * (`onDelta`, and whatever inlines it) is optimized for the hidden class of the open blocks, and
 * `--trace-deopt` showed that class dying at a full GC that falls between two responses (no
 * block of the last response survives it): the optimized code was thrown away ("weak objects")
 * and the next response ran its deltas unoptimized until TurboFan had compiled them again.
 * These hold nothing of a real response.
 */
keepShape(openBlock({ type: 'text', text: '' }));
keepShape(openBlock({ type: 'thinking', thinking: '', signature: '' }));
keepShape(openBlock({ type: 'tool_use', id: '', name: '', input: {} }));
