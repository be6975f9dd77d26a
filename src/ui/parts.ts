/** Building message parts: from a block's start (streaming), from a complete block, from history content. */
import type { BlockStart } from '../protocol/events.js';
import type { AssistantContentBlock, ContentBlock, ToolResultBlock } from '../protocol/content.js';
import { fileChangeDiff } from './diff.js';
import type { Part, ToolPart, ToolResultView } from './types.js';

export function partKey(messageKey: string, blockIndex: number): string {
  return `${messageKey}.${blockIndex}`;
}

export function newToolPart(key: string, blockIndex: number, id: string, name: string, input: unknown): ToolPart {
  return {
    kind: 'tool',
    key,
    blockIndex,
    id,
    name,
    status: 'pending',
    input,
    partialInput: '',
    startedAt: undefined,
    durationMs: undefined,
    progress: [],
    result: undefined,
    diff: fileChangeDiff(name, input),
    subagent: undefined,
  };
}

/** The part a `content_block_start` opens, or undefined for a block kind the view does not show. */
export function partFromStart(messageKey: string, blockIndex: number, block: BlockStart): Part | undefined {
  const key = partKey(messageKey, blockIndex);
  switch (block.type) {
    case 'text':
      return { kind: 'text', key, blockIndex, text: block.text, streaming: true };
    case 'thinking':
      return { kind: 'thinking', key, blockIndex, text: block.thinking, streaming: true, redacted: false };
    case 'redacted_thinking':
      return { kind: 'thinking', key, blockIndex, text: '', streaming: false, redacted: true };
    case 'tool_use':
      return { ...newToolPart(key, blockIndex, block.id, block.name, {}), diff: undefined };
    default:
      return undefined;
  }
}

/**
 * A complete block as a part. `previous` (the streamed part, when there was one) keeps its
 * identity when nothing changed and its tool state (a call may already run).
 */
export function partFromBlock(messageKey: string, blockIndex: number, block: AssistantContentBlock, previous: Part | undefined): Part {
  const key = partKey(messageKey, blockIndex);
  switch (block.type) {
    case 'text':
      if (previous?.kind === 'text' && previous.text === block.text && !previous.streaming) return previous;
      return { kind: 'text', key, blockIndex, text: block.text, streaming: false };
    case 'thinking':
      if (previous?.kind === 'thinking' && previous.text === block.thinking && !previous.streaming) return previous;
      return { kind: 'thinking', key, blockIndex, text: block.thinking, streaming: false, redacted: false };
    case 'redacted_thinking':
      return previous?.kind === 'thinking' && previous.redacted ? previous : { kind: 'thinking', key, blockIndex, text: '', streaming: false, redacted: true };
    case 'tool_use': {
      if (previous?.kind === 'tool' && previous.id === block.id) {
        if (previous.partialInput === '' && previous.input === block.input) return previous;
        return { ...previous, input: block.input, partialInput: '', diff: fileChangeDiff(block.name, block.input) };
      }
      return newToolPart(key, blockIndex, block.id, block.name, block.input);
    }
    default: {
      // A block the server ran (web search, code execution, compaction, ...): a one-line label;
      // its content stays in the message for the next request.
      const text = 'name' in block && typeof block.name === 'string' ? `[${block.type}: ${block.name}]` : `[${block.type}]`;
      return previous?.kind === 'text' && previous.text === text ? previous : { kind: 'text', key, blockIndex, text, streaming: false };
    }
  }
}

/** The text of a tool result, for the card (images as a marker). */
export function resultView(result: ToolResultBlock): ToolResultView {
  const content = result.content;
  const text =
    typeof content === 'string'
      ? content
      : (content ?? []).map((b) => (b.type === 'text' ? b.text : `[${b.type}]`)).join('\n');
  return { text, isError: result.is_error === true };
}

/** The text of a user message's content (text blocks only). */
export function userText(content: string | readonly ContentBlock[]): string {
  if (typeof content === 'string') return content;
  return content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
}
