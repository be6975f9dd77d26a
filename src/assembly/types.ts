/**
 * What `assembleBlocks()` emits. Transport events (`api_retry`, `stream_retry`, `debug`) pass
 * through unchanged; a `stream_retry` also resets the assembly state, because the failed
 * attempt's partial message is void and a fresh `message_start` follows.
 */
import type {
  AssistantContentBlock,
  AssistantMessage,
  StopReason,
  ToolUseBlock,
  Usage,
} from '../protocol/content.js';
import type { BlockStart } from '../protocol/events.js';
import type { TransportEvent } from '../transport/types.js';

/** A response began: its id, model and the usage known so far (the input tokens). */
export interface MessageStartedEvent {
  readonly type: 'message_start';
  readonly id: string;
  readonly model: string;
  readonly usage: Usage;
}

/** A content block opened: the model has moved on from the previous block. */
export interface BlockStartedEvent {
  readonly type: 'block_start';
  readonly index: number;
  readonly block: BlockStart;
}

/** A piece of text for the text block at `index`, to show as it arrives. */
export interface TextDeltaEvent {
  readonly type: 'text_delta';
  readonly index: number;
  readonly text: string;
}

/** A piece of thinking for the thinking block at `index`. */
export interface ThinkingDeltaEvent {
  readonly type: 'thinking_delta';
  readonly index: number;
  readonly thinking: string;
}

/** Progress of a tool call's input; the input itself is parsed once, at the block's stop. */
export interface ToolInputDeltaEvent {
  readonly type: 'tool_input_delta';
  readonly index: number;
  readonly id: string;
  readonly name: string;
  readonly partialJson: string;
  /** UTF-16 code units of input received so far for this block. */
  readonly receivedChars: number;
}

/**
 * A tool_use whose input did not parse as a JSON object. `input` is `{}` so the block can be
 * replayed in history as is; `rawInput` keeps what the model sent, for the error result.
 */
export interface InvalidToolUseBlock extends ToolUseBlock {
  readonly invalid: { readonly rawInput: string; readonly reason: string };
}

/** A content block complete, emitted in the frame of its `content_block_stop`. */
export interface BlockCompletedEvent {
  readonly type: 'block';
  readonly index: number;
  readonly block: AssistantContentBlock | InvalidToolUseBlock;
}

/** The response's stop reason and final usage, just before it completes. */
export interface MessageDeltaReceivedEvent {
  readonly type: 'message_delta';
  readonly stopReason: StopReason | null;
  readonly stopSequence: string | null;
  readonly usage: Usage;
}

/**
 * Something in the stream assembly repaired or could not apply, and the message is kept anyway:
 * a delta whose fields do not fit its block, a block without its stop, a repeated block index.
 * `data` holds what was not applied, so nothing is lost silently.
 */
export interface AssemblyWarningEvent {
  readonly type: 'warning';
  readonly message: string;
  readonly data?: unknown;
}

/** The complete message, at `message_stop`. Usage is merged from start and delta. */
export interface MessageCompletedEvent {
  readonly type: 'message';
  readonly message: AssistantMessage;
}

/** The assembled view of one model stream, from `message_start` to the complete message. */
export type AssemblyEvent =
  | MessageStartedEvent
  | BlockStartedEvent
  | TextDeltaEvent
  | ThinkingDeltaEvent
  | ToolInputDeltaEvent
  | BlockCompletedEvent
  | MessageDeltaReceivedEvent
  | AssemblyWarningEvent
  | MessageCompletedEvent;

/** What `assembleBlocks()` emits: assembly events plus the transport events it passes through. */
export type AssemblyOutput = AssemblyEvent | TransportEvent;

/** Narrows a block to a tool_use whose input could not be parsed (the model is told, the tool is not run). */
export function isInvalidToolUse(block: AssistantContentBlock | InvalidToolUseBlock): block is InvalidToolUseBlock {
  return block.type === 'tool_use' && 'invalid' in block && block.invalid !== undefined;
}
