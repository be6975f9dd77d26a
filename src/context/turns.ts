/**
 * The structure every layer respects. A user turn starts at a user message that carries no
 * tool_result (the prompt, a queued input, hook feedback); tool-result messages continue the
 * turn. Messages are kept or dropped whole, and only at a turn start or (within a turn) at an
 * assistant message, so a tool_use is never separated from its tool_result and a thinking block
 * never leaves the assistant message it belongs to.
 */
import type { ContentBlock, MessageParam } from '../protocol/content.js';

/** Whether a message is a user message carrying tool results (it continues a turn). */
export function isToolResultMessage(message: MessageParam): boolean {
  if (message.role !== 'user' || typeof message.content === 'string') return false;
  for (const block of message.content) if (block.type === 'tool_result') return true;
  return false;
}

/** Whether a message starts a user turn: a user message without tool results. */
export function isTurnStart(message: MessageParam): boolean {
  return message.role === 'user' && !isToolResultMessage(message);
}

export function isThinkingBlock(block: ContentBlock): boolean {
  return block.type === 'thinking' || block.type === 'redacted_thinking';
}

export function hasThinking(message: MessageParam): boolean {
  if (typeof message.content === 'string') return false;
  for (const block of message.content) if (isThinkingBlock(block)) return true;
  return false;
}

function startsWithThinking(message: MessageParam): boolean {
  if (typeof message.content === 'string') return false;
  const first = message.content[0];
  return first !== undefined && isThinkingBlock(first);
}

/**
 * The latest index `c` in [1, messages.length) where the history may be cut so that
 * `messages[c..]` stands on its own, such that `messages[c..]` is estimated at most `budget`
 * tokens — or, when even the shortest tail is over budget, the latest cut at all. Undefined when
 * there is no cut point (a single exchange: nothing could be summarized).
 *
 * Valid cuts: a turn start, or an assistant message of a turn whose earlier assistant messages
 * carry no thinking (or which itself starts with thinking), so an extended-thinking trajectory
 * is never left without its reasoning.
 *
 * Scans backwards and stops at the budget: linear in what is kept, not in the history.
 */
export function findKeptStart(
  messages: readonly MessageParam[],
  budget: number,
  estimate: (message: MessageParam) => number,
): number | undefined {
  const validCuts = cutPointsFromEnd(messages);
  let best: number | undefined;
  let kept = 0;
  let next = messages.length; // messages[next..] are counted in `kept`
  for (const cut of validCuts) {
    for (let i = next - 1; i >= cut; i--) kept += estimate(messages[i]!);
    next = cut;
    if (best !== undefined && kept > budget) break;
    best = cut;
  }
  return best;
}

/**
 * Valid cut points in [1, length), latest first. Whether an assistant message is a valid cut
 * depends on earlier messages of its turn (thinking before it), so the turn is examined forward
 * once it is reached from behind; each message is still visited a bounded number of times.
 */
function* cutPointsFromEnd(messages: readonly MessageParam[]): Generator<number> {
  let end = messages.length; // exclusive end of the turn being examined
  while (end > 1) {
    // The start of the turn that contains messages[end - 1].
    let start = end - 1;
    while (start > 0 && !isTurnStart(messages[start]!)) start--;
    // Forward over the turn: assistant cuts are valid until thinking has been seen earlier.
    const cuts: number[] = [];
    let thinkingSeen = false;
    for (let i = start + 1; i < end; i++) {
      const message = messages[i]!;
      if (message.role !== 'assistant') continue;
      if (!thinkingSeen || startsWithThinking(message)) cuts.push(i);
      if (hasThinking(message)) thinkingSeen = true;
    }
    for (let k = cuts.length - 1; k >= 0; k--) yield cuts[k]!;
    if (start >= 1 && isTurnStart(messages[start]!)) yield start;
    end = start;
  }
}
