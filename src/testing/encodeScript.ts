/**
 * Pure encoding of a `ScriptedMessage` into the Messages API's stream events, their server-side
 * delays, the assembled non-streaming message and SSE text.
 *
 * Kept free of I/O so tests, golden fixtures and benchmarks can produce exactly the bytes the
 * scripted server would send, without starting it.
 */
import type { AssistantContentBlock, AssistantMessage, StopReason, Usage } from '../protocol/content.js';
import type { BlockStart, StreamEvent } from '../protocol/events.js';
import type { CacheBill } from './promptCache.js';
import type { ScriptedBlock, ScriptedMessage } from './script.js';
import { assertNever } from '../util/assertNever.js';

/** One stream event and the wait before it is written. */
export interface TimedStreamEvent {
  readonly event: StreamEvent;
  readonly delayMs: number;
}

/** Options of the script encoders: which response of the conversation this is, for unique default ids. */
export interface EncodeScriptOptions {
  /**
   * Distinguishes the default ids of different responses: the message id defaults to
   * `msg_scripted_<n>` and tool_use ids to `toolu_scripted_<n>_<block index>`. The server passes the
   * 0-based number of the response it plays, so ids are unique across a conversation. Default 0.
   */
  readonly responseIndex?: number;
  /** Model name when the message sets none (the server passes the request's model). */
  readonly model?: string;
  /** input_tokens of the default usage (the server passes an estimate from the request size). */
  readonly inputTokens?: number;
  /** How the default usage splits that input between cache reads, cache writes and the rest. */
  readonly cacheBill?: CacheBill;
}

/** The model name of a scripted reply that names none. */
export const DEFAULT_SCRIPTED_MODEL = 'claude-scripted';

/** The default tool_use id of block `blockIndex` in response `responseIndex`. */
export function defaultToolUseId(responseIndex: number, blockIndex: number): string {
  return `toolu_scripted_${responseIndex}_${blockIndex}`;
}

/** The default message id of response `responseIndex`. */
export function defaultMessageId(responseIndex: number): string {
  return `msg_scripted_${responseIndex}`;
}

/** The default input_tokens for a request body: about 4 characters per token. */
export function estimateInputTokens(rawBody: string): number {
  return estimateInputTokensOfLength(rawBody.length);
}

/** {@link estimateInputTokens} from the body text's length alone. */
export function estimateInputTokensOfLength(length: number): number {
  return Math.ceil(length / 4);
}

/** The default stop reason: 'tool_use' when the message has a tool_use block, else 'end_turn'. */
export function defaultStopReason(msg: ScriptedMessage): StopReason {
  return msg.blocks.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
}

/** The final usage: the script's, or an estimate (about 4 characters per token). */
export function scriptedUsage(msg: ScriptedMessage, opts: EncodeScriptOptions = {}): Usage {
  if (msg.usage) return msg.usage;
  const outputChars = msg.blocks.reduce((sum, b) => sum + blockPayload(b).length, 0);
  const bill = opts.cacheBill;
  return {
    input_tokens: bill ? bill.inputTokens : (opts.inputTokens ?? 0),
    output_tokens: Math.max(1, Math.ceil(outputChars / 4)),
    cache_creation_input_tokens: bill?.cacheCreationInputTokens ?? 0,
    cache_read_input_tokens: bill?.cacheReadInputTokens ?? 0,
  };
}

/**
 * The complete event sequence of `msg` (faults such as `cutAfterEvents` or `omitMessageStop` are
 * NOT applied here: see `planScriptedStream`), each with the delay before it per `BlockTiming`
 * and `endDelayMs`.
 */
export function scriptedMessageToEvents(msg: ScriptedMessage, opts: EncodeScriptOptions = {}): TimedStreamEvent[] {
  const responseIndex = opts.responseIndex ?? 0;
  const usage = scriptedUsage(msg, opts);
  const out: TimedStreamEvent[] = [];
  const push = (event: StreamEvent, delayMs = 0): void => {
    out.push({ event, delayMs });
  };

  push({
    type: 'message_start',
    message: {
      id: msg.id ?? defaultMessageId(responseIndex),
      type: 'message',
      role: 'assistant',
      model: msg.model ?? opts.model ?? DEFAULT_SCRIPTED_MODEL,
      content: (msg.prefilled ?? []) as unknown as AssistantContentBlock[],
      stop_reason: null,
      stop_sequence: null,
      // Like the real API: input-side usage up front, output_tokens counted at the end.
      usage: { ...usage, output_tokens: Math.min(1, usage.output_tokens ?? 1) },
    },
  });

  const offset = msg.prefilled?.length ?? 0;
  msg.blocks.forEach((block, at) => {
    const index = at + offset;
    const deltaDelay = block.deltaDelayMs ?? 0;
    push({ type: 'content_block_start', index, content_block: blockStart(block, responseIndex, index) }, block.delayMs ?? 0);
    switch (block.type) {
      case 'text':
        for (const text of splitText(block.text, block.chunkSize)) {
          push({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } }, deltaDelay);
        }
        break;
      case 'thinking':
        for (const thinking of splitText(block.thinking, block.chunkSize)) {
          push({ type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } }, deltaDelay);
        }
        push(
          {
            type: 'content_block_delta',
            index,
            delta: { type: 'signature_delta', signature: thinkingSignature(block, responseIndex, index) },
          },
          deltaDelay,
        );
        break;
      case 'redacted_thinking':
        // The API sends redacted thinking whole in content_block_start, with no deltas.
        break;
      case 'tool_use':
      case 'server_tool_use':
        for (const partial_json of splitText(toolInputText(block), block.chunkSize)) {
          push({ type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } }, deltaDelay);
        }
        break;
      case 'server_block':
        break; // whole in its start, like the API's tool results
      default:
        assertNever(block, 'scripted block');
    }
    push({ type: 'content_block_stop', index }, block.stopDelayMs ?? 0);
  });

  push(
    {
      type: 'message_delta',
      delta: {
        stop_reason: msg.stopReason ?? defaultStopReason(msg),
        stop_sequence: msg.stopSequence ?? null,
        ...(msg.container !== undefined ? { container: msg.container } : {}),
        ...(msg.stopDetails !== undefined ? { stop_details: msg.stopDetails } : {}),
      },
      usage,
      ...(msg.contextManagement !== undefined ? { context_management: msg.contextManagement } : {}),
    },
    msg.endDelayMs ?? 0,
  );
  push({ type: 'message_stop' });
  return out;
}

/** How a planned stream ends: cleanly, by destroying the socket, or by never ending. */
export type StreamEnding = 'end' | 'destroy' | 'stall';

/** The events the server will write for a reply, with their delays, and how the stream ends. */
export interface ScriptedStreamPlan {
  readonly events: readonly TimedStreamEvent[];
  readonly ending: StreamEnding;
}

/**
 * The events the server actually writes for `msg`, with its faults applied: `omitMessageStop`,
 * then `errorAfterEvents` (an SSE `error` event replaces the rest), `cutAfterEvents` (destroy) and
 * `stallAfterEvents` (hold the connection open). When several are given, the earliest cut wins.
 */
export function planScriptedStream(msg: ScriptedMessage, opts: EncodeScriptOptions = {}): ScriptedStreamPlan {
  let events = scriptedMessageToEvents(msg, opts);
  if (msg.omitMessageStop) events = events.slice(0, -1);

  const cuts: { at: number; apply: () => ScriptedStreamPlan }[] = [];
  const error = msg.errorAfterEvents;
  if (error) {
    cuts.push({
      at: error.events,
      apply: () => ({
        events: [
          ...events.slice(0, error.events),
          { event: { type: 'error', error: { type: error.type, message: error.message } }, delayMs: 0 },
        ],
        ending: 'end',
      }),
    });
  }
  const cut = msg.cutAfterEvents;
  if (cut !== undefined) cuts.push({ at: cut, apply: () => ({ events: events.slice(0, cut), ending: 'destroy' }) });
  const stall = msg.stallAfterEvents;
  if (stall !== undefined) cuts.push({ at: stall, apply: () => ({ events: events.slice(0, stall), ending: 'stall' }) });

  // A stable sort: on a tie the error event wins over the cut, and the cut over the stall.
  const earliest = cuts.sort((a, b) => a.at - b.at)[0];
  return earliest ? earliest.apply() : { events, ending: 'end' };
}

/**
 * The message as the non-streaming API returns it. Throws when a tool_use `rawInput` is not a
 * JSON object: the non-streaming API can only carry parsed inputs.
 */
export function scriptedMessageToJson(msg: ScriptedMessage, opts: EncodeScriptOptions = {}): AssistantMessage {
  const responseIndex = opts.responseIndex ?? 0;
  const offset = msg.prefilled?.length ?? 0;
  const streamed = msg.blocks.map((block, at): AssistantContentBlock => {
    const index = at + offset;
    switch (block.type) {
      case 'text':
        return { type: 'text', text: block.text };
      case 'thinking':
        return { type: 'thinking', thinking: block.thinking, signature: thinkingSignature(block, responseIndex, index) };
      case 'redacted_thinking':
        return { type: 'redacted_thinking', data: block.data };
      case 'tool_use':
        return {
          type: 'tool_use',
          id: block.id ?? defaultToolUseId(responseIndex, index),
          name: block.name,
          input: parseObjectInput(block, index),
        };
      case 'server_tool_use':
        return { type: 'server_tool_use', id: block.id ?? defaultServerToolUseId(responseIndex, index), name: block.name, input: { ...(block.input ?? {}) } };
      case 'server_block':
        return { ...block.block } as unknown as AssistantContentBlock;
      default:
        return assertNever(block, 'scripted block');
    }
  });
  const content = [...((msg.prefilled ?? []) as unknown as AssistantContentBlock[]), ...streamed];
  return {
    id: msg.id ?? defaultMessageId(responseIndex),
    type: 'message',
    role: 'assistant',
    model: msg.model ?? opts.model ?? DEFAULT_SCRIPTED_MODEL,
    content,
    stop_reason: msg.stopReason ?? defaultStopReason(msg),
    stop_sequence: msg.stopSequence ?? null,
    ...(msg.container !== undefined ? { container: msg.container } : {}),
    ...(msg.stopDetails !== undefined ? { stop_details: msg.stopDetails } : {}),
    ...(msg.contextManagement !== undefined ? { context_management: msg.contextManagement } : {}),
    usage: scriptedUsage(msg, opts),
  };
}

/** One SSE frame: `event: <type>\ndata: <json>\n\n`. */
export function encodeSSE(event: { readonly type: string }): string {
  return `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}

/** The SSE text of a whole event list. */
export function encodeSSEStream(events: readonly { readonly type: string }[]): string {
  let text = '';
  for (const event of events) text += encodeSSE(event);
  return text;
}

/** The JSON text a tool_use block streams: `rawInput` when given, else its input as JSON. */
export function toolInputText(block: Extract<ScriptedBlock, { type: 'tool_use' | 'server_tool_use' }>): string {
  return ('rawInput' in block ? block.rawInput : undefined) ?? JSON.stringify(block.input ?? {});
}

/** The default server_tool_use id of block `blockIndex` in response `responseIndex`. */
export function defaultServerToolUseId(responseIndex: number, blockIndex: number): string {
  return `srvtoolu_scripted_${responseIndex}_${blockIndex}`;
}

/**
 * Splits `text` into pieces of `chunkSize` UTF-16 units (one piece when unset), never between the
 * halves of a surrogate pair. Empty text gives no pieces.
 */
export function splitText(text: string, chunkSize?: number): string[] {
  if (text.length === 0) return [];
  if (chunkSize === undefined || chunkSize >= text.length) return [text];
  if (!Number.isInteger(chunkSize) || chunkSize < 1) {
    throw new RangeError(`chunkSize must be a positive integer, got ${chunkSize}`);
  }
  const pieces: string[] = [];
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + chunkSize, text.length);
    // Keep a surrogate pair together so every piece is well-formed text.
    if (end < text.length && isHighSurrogate(text.charCodeAt(end - 1))) end += end - start > 1 ? -1 : 1;
    pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function blockStart(block: ScriptedBlock, responseIndex: number, index: number) {
  switch (block.type) {
    case 'text':
      return { type: 'text' as const, text: '' };
    case 'thinking':
      return { type: 'thinking' as const, thinking: '', signature: '' };
    case 'redacted_thinking':
      return { type: 'redacted_thinking' as const, data: block.data };
    case 'tool_use':
      return {
        type: 'tool_use' as const,
        id: block.id ?? defaultToolUseId(responseIndex, index),
        name: block.name,
        input: {},
      };
    case 'server_tool_use':
      return { type: 'server_tool_use', id: block.id ?? defaultServerToolUseId(responseIndex, index), name: block.name, input: {} } as unknown as BlockStart;
    case 'server_block':
      return block.block as unknown as BlockStart;
    default:
      return assertNever(block, 'scripted block');
  }
}

function thinkingSignature(block: Extract<ScriptedBlock, { type: 'thinking' }>, responseIndex: number, index: number): string {
  return block.signature ?? `sig_scripted_${responseIndex}_${index}`;
}

/** The characters a block's deltas carry, for the default output_tokens estimate. */
function blockPayload(block: ScriptedBlock): string {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'thinking':
      return block.thinking;
    case 'redacted_thinking':
      return block.data;
    case 'tool_use':
    case 'server_tool_use':
      return toolInputText(block);
    case 'server_block':
      return JSON.stringify(block.block);
    default:
      return assertNever(block, 'scripted block');
  }
}

function parseObjectInput(block: Extract<ScriptedBlock, { type: 'tool_use' }>, index: number): Record<string, unknown> {
  if (block.rawInput === undefined) return { ...(block.input ?? {}) };
  let parsed: unknown;
  try {
    parsed = JSON.parse(block.rawInput);
  } catch {
    throw new Error(
      `block ${index} (tool_use ${block.name}): rawInput is not JSON, which a non-streaming response cannot carry`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new Error(`block ${index} (tool_use ${block.name}): rawInput is not a JSON object`);
  }
  return parsed as Record<string, unknown>;
}
