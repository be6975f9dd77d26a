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

export interface TextDeltaEvent {
  readonly type: 'text_delta';
  readonly index: number;
  readonly text: string;
}

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

export interface MessageDeltaReceivedEvent {
  readonly type: 'message_delta';
  readonly stopReason: StopReason | null;
  readonly stopSequence: string | null;
  readonly usage: Usage;
}

/** The complete message, at `message_stop`. Usage is merged from start and delta. */
export interface MessageCompletedEvent {
  readonly type: 'message';
  readonly message: AssistantMessage;
}

export type AssemblyEvent =
  | MessageStartedEvent
  | BlockStartedEvent
  | TextDeltaEvent
  | ThinkingDeltaEvent
  | ToolInputDeltaEvent
  | BlockCompletedEvent
  | MessageDeltaReceivedEvent
  | MessageCompletedEvent;

export type AssemblyOutput = AssemblyEvent | TransportEvent;

export function isInvalidToolUse(block: AssistantContentBlock | InvalidToolUseBlock): block is InvalidToolUseBlock {
  return block.type === 'tool_use' && 'invalid' in block && block.invalid !== undefined;
}
