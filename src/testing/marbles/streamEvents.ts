/**
 * Builders for the Messages API's stream events, the values of a hand-written `cold()` model
 * reply. Each returns exactly the event the real API sends (and the client emits), so a loop fed
 * with them behaves as it would over HTTP. Block indexes default to 0: pass one per block.
 *
 * @example
 * ```ts
 * const reply = cold('a b c d (ef|)', {
 *   a: messageStart(), b: textStart(), c: textDelta('Hi'), d: blockStop(),
 *   e: messageDelta('end_turn'), f: messageStop(),
 * });
 * ```
 */
import type { StopReason, Usage } from '../../protocol/content.js';
import type {
  ContentBlockDeltaEvent,
  ContentBlockStartEvent,
  ContentBlockStopEvent,
  MessageDeltaEvent,
  MessageStartEvent,
  MessageStopEvent,
} from '../../protocol/events.js';
import { DEFAULT_SCRIPTED_MODEL } from '../encodeScript.js';

/** `message_start`: an empty assistant message (the id and model are the scripted defaults). */
export function messageStart(options: { readonly id?: string; readonly model?: string; readonly usage?: Usage } = {}): MessageStartEvent {
  return {
    type: 'message_start',
    message: {
      id: options.id ?? 'msg_marble',
      type: 'message',
      role: 'assistant',
      model: options.model ?? DEFAULT_SCRIPTED_MODEL,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: options.usage ?? { input_tokens: 1, output_tokens: 0 },
    },
  };
}

/** `content_block_start` of an empty text block. */
export const textStart = (index = 0): ContentBlockStartEvent => ({ type: 'content_block_start', index, content_block: { type: 'text', text: '' } });

/** `content_block_start` of an empty thinking block. */
export const thinkingStart = (index = 0): ContentBlockStartEvent => ({
  type: 'content_block_start',
  index,
  content_block: { type: 'thinking', thinking: '' },
});

/**
 * `content_block_start` of a tool_use block. The API starts with `input: {}` and streams the input
 * as `inputJsonDelta`s; a start that carries the whole `input` and no delta is assembled the same.
 */
export const toolUseStart = (name: string, input: Readonly<Record<string, unknown>> = {}, id = `toolu_${name}`, index = 0): ContentBlockStartEvent => ({
  type: 'content_block_start',
  index,
  content_block: { type: 'tool_use', id, name, input },
});

/** A `text_delta` of block `index`. */
export const textDelta = (text: string, index = 0): ContentBlockDeltaEvent => ({ type: 'content_block_delta', index, delta: { type: 'text_delta', text } });

/** A `thinking_delta` of block `index`. */
export const thinkingDelta = (thinking: string, index = 0): ContentBlockDeltaEvent => ({
  type: 'content_block_delta',
  index,
  delta: { type: 'thinking_delta', thinking },
});

/** The `signature_delta` that closes a thinking block's content. */
export const signatureDelta = (signature: string, index = 0): ContentBlockDeltaEvent => ({
  type: 'content_block_delta',
  index,
  delta: { type: 'signature_delta', signature },
});

/** A piece of a tool_use block's input JSON (the pieces of a block join to one JSON object). */
export const inputJsonDelta = (partialJson: string, index = 0): ContentBlockDeltaEvent => ({
  type: 'content_block_delta',
  index,
  delta: { type: 'input_json_delta', partial_json: partialJson },
});

/** `content_block_stop`: the block is complete (a tool_use block's tool may start now). */
export const blockStop = (index = 0): ContentBlockStopEvent => ({ type: 'content_block_stop', index });

/** `message_delta` with the stop reason and the final usage. */
export const messageDelta = (stopReason: StopReason, usage: Usage = { output_tokens: 1 }): MessageDeltaEvent => ({
  type: 'message_delta',
  delta: { stop_reason: stopReason, stop_sequence: null },
  usage,
});

/** `message_stop`: the reply is over. */
export const messageStop = (): MessageStopEvent => ({ type: 'message_stop' });
