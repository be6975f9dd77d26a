/**
 * A response still streaming when its run ended. The loop keeps such a response's COMPLETE
 * blocks in the history (when any are replayable) without an `assistant_message` event; the
 * terminal's final history says what was kept. The view keeps exactly that: the parts the history
 * holds, or nothing when the history ends with an assistant message the view already shows.
 */
import type { MessageParam } from '../protocol/content.js';
import { partFromBlock } from './parts.js';
import { settleMessage } from './reduceStream.js';
import type { MessageView, Part, TurnItem } from './types.js';

/** What identifies a message's content for matching: its texts and tool call ids. */
function shapeOfParts(parts: readonly Part[]): string {
  return JSON.stringify(parts.flatMap((p) => (p.kind === 'text' ? [p.text] : p.kind === 'tool' ? [`#${p.id}`] : [])));
}

function shapeOfParam(message: MessageParam): string {
  if (typeof message.content === 'string') return JSON.stringify([message.content]);
  return JSON.stringify(message.content.flatMap((b) => (b.type === 'text' ? [b.text] : b.type === 'tool_use' ? [`#${b.id}`] : [])));
}

/**
 * The streaming message as the history kept it, or undefined when the history did not keep it.
 * `shown` are the items of the view so far (to tell our message from one already shown).
 */
export function settleAtEnd(message: MessageView, history: readonly MessageParam[] | undefined, shown: readonly TurnItem[]): MessageView | undefined {
  const completed = message.parts.filter((p) => p.kind === 'tool' || !p.streaming);
  if (history === undefined) return completed.length === 0 ? undefined : settleMessage({ ...message, parts: completed });
  const lastKept = [...history].reverse().find((m) => m.role === 'assistant');
  if (!lastKept || typeof lastKept.content === 'string') return undefined;
  const lastShown = [...shown].reverse().find((i): i is MessageView => i.kind === 'message' && i.role === 'assistant' && i.uuid !== undefined);
  if (lastShown && shapeOfParts(lastShown.parts) === shapeOfParam(lastKept)) return undefined;
  const parts = lastKept.content.flatMap((block, blockIndex) =>
    block.type === 'text' || block.type === 'thinking' || block.type === 'redacted_thinking' || block.type === 'tool_use'
      ? [partFromBlock(message.key, blockIndex, block, message.parts.find((p) => p.blockIndex === blockIndex))]
      : [],
  );
  return settleMessage({ ...message, parts });
}
