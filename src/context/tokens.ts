/**
 * Token accounting (SPEC §6): the count of the next request is the usage the API reported for
 * the last response (exact) plus a conservative estimate of every message added since. The
 * estimate rounds up on purpose: compacting a little early is cheap, a request over the window
 * is a wasted round trip.
 */
import type { ContentBlock, MessageParam, Usage } from '../protocol/content.js';
import type { ModelLimits } from './models.js';

/** Characters per token for the estimate; real English text and JSON run closer to 3.5–4. */
export const CHARS_PER_TOKEN = 3;
/** A fixed cost per image: a full-size image costs about 1,600 tokens. */
export const IMAGE_TOKENS = 2_000;
/** Role and framing of each message. */
export const MESSAGE_OVERHEAD_TOKENS = 4;
/** Framing of each block (type tags, ids). */
export const BLOCK_OVERHEAD_TOKENS = 3;

/** Estimated tokens of `chars` characters of text (a fixed characters-per-token ratio). */
export function estimateTextTokens(chars: number): number {
  return Math.ceil(chars / CHARS_PER_TOKEN);
}

/** Estimated tokens of one content block, framing included. */
export function estimateBlockTokens(block: ContentBlock): number {
  switch (block.type) {
    case 'text':
      return BLOCK_OVERHEAD_TOKENS + estimateTextTokens(block.text.length);
    case 'thinking':
      return BLOCK_OVERHEAD_TOKENS + estimateTextTokens(block.thinking.length + block.signature.length);
    case 'redacted_thinking':
      return BLOCK_OVERHEAD_TOKENS + estimateTextTokens(block.data.length);
    case 'tool_use':
      return BLOCK_OVERHEAD_TOKENS + estimateTextTokens(block.name.length + block.id.length + JSON.stringify(block.input).length);
    case 'tool_result': {
      let tokens = BLOCK_OVERHEAD_TOKENS + estimateTextTokens(block.tool_use_id.length);
      const content = block.content;
      if (typeof content === 'string') tokens += estimateTextTokens(content.length);
      else if (content) for (const part of content) tokens += part.type === 'text' ? estimateTextTokens(part.text.length) : IMAGE_TOKENS;
      return tokens;
    }
    case 'image':
      return IMAGE_TOKENS;
    default:
      // A block type added to the protocol later: count its JSON rather than nothing.
      return BLOCK_OVERHEAD_TOKENS + estimateTextTokens(JSON.stringify(block).length);
  }
}

/**
 * Messages are never mutated (the loop rebuilds, it does not edit), so the estimate of a message
 * object is computed once: repeated governance over a long history costs a lookup per message,
 * not a re-serialisation of every tool input.
 */
const messageTokenCache = new WeakMap<MessageParam, number>();

/** Estimated tokens of one message, framing included. */
export function estimateMessageTokens(message: MessageParam): number {
  const cached = messageTokenCache.get(message);
  if (cached !== undefined) return cached;
  let tokens = MESSAGE_OVERHEAD_TOKENS;
  if (typeof message.content === 'string') tokens += estimateTextTokens(message.content.length);
  else for (const block of message.content) tokens += estimateBlockTokens(block);
  messageTokenCache.set(message, tokens);
  return tokens;
}

/** The estimate of `messages[from..to)`. */
export function estimateMessagesTokens(messages: readonly MessageParam[], from = 0, to = messages.length): number {
  let total = 0;
  for (let i = Math.max(0, from); i < to; i++) total += estimateMessageTokens(messages[i]!);
  return total;
}

/** Everything a response's usage says the context held: input, cache reads and writes, output. */
export function usageTokens(usage: Usage): number {
  return (
    (usage.input_tokens ?? 0) +
    (usage.cache_read_input_tokens ?? 0) +
    (usage.cache_creation_input_tokens ?? 0) +
    (usage.output_tokens ?? 0)
  );
}

/** What {@link countTokens} needs: the messages, and the usage of the last response if there is one. */
export interface TokenCountInput {
  readonly messages: readonly MessageParam[];
  /** Usage of the last response; undefined (or stale) means everything is estimated. */
  readonly lastUsage: Usage | undefined;
  /** `messages[messagesSinceUsage..]` were added after `lastUsage` was reported. */
  readonly messagesSinceUsage: number;
}

/** The token count of a request carrying `messages` (SPEC §6). */
export function countTokens(input: TokenCountInput): number {
  if (input.lastUsage === undefined) return estimateMessagesTokens(input.messages);
  return usageTokens(input.lastUsage) + estimateMessagesTokens(input.messages, input.messagesSinceUsage);
}

/** The token lines of one model: the effective window, where auto-compaction starts, where sending stops. */
export interface ContextThresholds {
  readonly contextWindow: number;
  /** The window minus the room reserved for the answer. */
  readonly effectiveWindow: number;
  /** At or above: compact before the call. */
  readonly autoCompactAt: number;
  /** At or above (with no successful compaction): do not send; terminal `blocking_limit`. */
  readonly blockingAt: number;
}

/** Tokens of the window kept for the answer (at most the model's output limit); the rest is the effective window. */
export const MAX_OUTPUT_RESERVE = 20_000;
/** Auto-compaction starts this far below the effective window, well before the blocking line. */
export const AUTO_COMPACT_BUFFER = 13_000;
/** Requests stop (`blocking_limit`) this far below the effective window, so one that cannot fit is never sent. */
export const BLOCKING_BUFFER = 3_000;

/** The {@link ContextThresholds} of a model's limits. */
export function contextThresholds(limits: ModelLimits): ContextThresholds {
  const effectiveWindow = limits.contextWindow - Math.min(limits.maxOutputTokens, MAX_OUTPUT_RESERVE);
  return {
    contextWindow: limits.contextWindow,
    effectiveWindow,
    autoCompactAt: effectiveWindow - AUTO_COMPACT_BUFFER,
    blockingAt: effectiveWindow - BLOCKING_BUFFER,
  };
}
