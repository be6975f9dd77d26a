/**
 * Layer 1, snip: drop the oldest complete user turns beyond a limit. The cheapest layer that
 * frees real space; what it drops is gone from the view (the transcript keeps it), so it is
 * opt-in. Complete turns only: the kept view starts at a user prompt, with every tool_use still
 * next to its tool_result and every thinking block still in its assistant message.
 */
import type { MessageParam } from '../protocol/content.js';
import { estimateMessagesTokens } from './tokens.js';
import { isTurnStart } from './turns.js';

/** Options of {@link snip}. */
export interface SnipOptions {
  /** How many of the most recent user turns to keep. */
  readonly maxTurns: number;
}

/** What {@link snip} dropped. */
export interface SnipResult {
  /** The input array itself when nothing was dropped. */
  readonly messages: readonly MessageParam[];
  readonly removedMessages: number;
  /** Estimated tokens of the dropped messages. */
  readonly tokensFreed: number;
}

/** Layer 1: drops the oldest complete user turns beyond `maxTurns` (the transcript keeps them). */
export function snip(messages: readonly MessageParam[], options: SnipOptions): SnipResult {
  const maxTurns = Math.max(1, Math.floor(options.maxTurns));
  // Backwards: find the start of the maxTurns-th turn from the end; stop there.
  let turns = 0;
  let cut = 0;
  for (let i = messages.length - 1; i > 0; i--) {
    if (!isTurnStart(messages[i]!)) continue;
    turns++;
    if (turns === maxTurns) {
      cut = i;
      break;
    }
  }
  if (cut === 0) return { messages, removedMessages: 0, tokensFreed: 0 };
  return { messages: messages.slice(cut), removedMessages: cut, tokensFreed: estimateMessagesTokens(messages, 0, cut) };
}
