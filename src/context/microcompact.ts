/**
 * Layer 2, microcompact: the content of tool results older than N model rounds (assistant
 * messages) is replaced by a short placeholder. The tool_result block stays, with its
 * `tool_use_id` and `is_error`, so every pair remains valid; only its payload goes.
 *
 * Age is counted in rounds rather than user turns because one user turn of a coding agent can
 * hold hundreds of tool rounds, and that is exactly where stale file dumps pile up.
 */
import type { ContentBlock, MessageParam, ToolResultBlock } from '../protocol/content.js';
import { estimateMessageTokens } from './tokens.js';

/** What replaces a cleared tool result: it tells the model how to get the output back. */
export const MICROCOMPACT_PLACEHOLDER =
  '[This earlier tool result was cleared to save context. Run the tool again if its output is needed.]';

/** Options of {@link microcompact}. */
export interface MicrocompactOptions {
  /** Tool results of the most recent `keepRecentRounds` assistant messages are left alone. */
  readonly keepRecentRounds: number;
  /** Only results of these tools are cleared (default: every tool). */
  readonly shouldClear?: (toolName: string) => boolean;
}

/** What {@link microcompact} changed. */
export interface MicrocompactResult {
  /** The input array itself when nothing changed. */
  readonly messages: readonly MessageParam[];
  readonly clearedResults: number;
  readonly tokensFreed: number;
  /** Indexes of the messages that were replaced (the same in input and output). */
  readonly changedIndexes: readonly number[];
}

/**
 * The cleared form of a message never changes, so it is computed once per message object; a
 * history that keeps its old messages costs one lookup per message per call.
 */
const clearedCache = new WeakMap<MessageParam, { readonly message: MessageParam; readonly cleared: number }>();

/** Layer 2: replaces the content of tool results older than `keepRecentRounds` rounds with a placeholder; pairs stay valid. */
export function microcompact(messages: readonly MessageParam[], options: MicrocompactOptions): MicrocompactResult {
  const keep = Math.max(0, Math.floor(options.keepRecentRounds));
  let rounds = 0;
  let out: MessageParam[] | undefined;
  let clearedResults = 0;
  let tokensFreed = 0;
  const changedIndexes: number[] = [];
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === 'assistant') {
      rounds++;
      continue;
    }
    // The results in messages[i] answer messages[i - 1], which is round `rounds + 1` from the end.
    if (rounds + 1 <= keep || typeof message.content === 'string') continue;
    const previous = messages[i - 1];
    const cleared = clearMessage(message, previous, options.shouldClear);
    if (cleared.message === message) continue;
    out ??= messages.slice();
    out[i] = cleared.message;
    changedIndexes.push(i);
    clearedResults += cleared.cleared;
    tokensFreed += estimateMessageTokens(message) - estimateMessageTokens(cleared.message);
  }
  return out
    ? { messages: out, clearedResults, tokensFreed, changedIndexes }
    : { messages, clearedResults: 0, tokensFreed: 0, changedIndexes };
}

function clearMessage(
  message: MessageParam,
  previous: MessageParam | undefined,
  shouldClear: ((toolName: string) => boolean) | undefined,
): { readonly message: MessageParam; readonly cleared: number } {
  // The cache ignores `shouldClear`: one predicate per governor, fixed for its lifetime.
  const cached = clearedCache.get(message);
  if (cached) return cached;
  const names = shouldClear ? toolNames(previous) : undefined;
  let content: ContentBlock[] | undefined;
  let cleared = 0;
  const blocks = message.content as readonly ContentBlock[];
  for (let k = 0; k < blocks.length; k++) {
    const block = blocks[k]!;
    if (block.type !== 'tool_result' || isCleared(block)) continue;
    if (shouldClear && !shouldClear(names?.get(block.tool_use_id) ?? '')) continue;
    content ??= blocks.slice();
    content[k] = { ...block, content: MICROCOMPACT_PLACEHOLDER };
    cleared++;
  }
  const result = content ? { message: { ...message, content }, cleared } : { message, cleared: 0 };
  clearedCache.set(message, result);
  return result;
}

function isCleared(block: ToolResultBlock): boolean {
  const content = block.content;
  // Clearing a result shorter than the placeholder would only make it longer.
  if (content === undefined || content === MICROCOMPACT_PLACEHOLDER) return true;
  if (typeof content === 'string') return content.length <= MICROCOMPACT_PLACEHOLDER.length;
  let chars = 0;
  for (const part of content) {
    if (part.type !== 'text') return false;
    chars += part.text.length;
  }
  return chars <= MICROCOMPACT_PLACEHOLDER.length;
}

function toolNames(assistant: MessageParam | undefined): Map<string, string> {
  const names = new Map<string, string>();
  if (assistant && typeof assistant.content !== 'string') {
    for (const block of assistant.content) if (block.type === 'tool_use') names.set(block.id, block.name);
  }
  return names;
}
