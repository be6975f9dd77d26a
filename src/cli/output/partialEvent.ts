/**
 * `--include-partial-messages`: the loop forwards assembled stream events, not the raw SSE, so
 * the raw API event each one stands for is rebuilt here (same `type` names and fields as the
 * Messages API), which is what consumers of Claude Code's `stream_event` lines read.
 */
import type { AssemblyEvent } from '../../assembly/types.js';
import { assertNever } from '../../util/assertNever.js';

export type RawEventLike = { readonly type: string } & Readonly<Record<string, unknown>>;

/**
 * The API event(s) one assembly event stands for. `message` maps to none: the loop turns it into
 * its `assistant_message`, where the stream-json mapper prints `message_stop`.
 */
export function rawEventsOf(event: AssemblyEvent): RawEventLike[] {
  switch (event.type) {
    case 'message_start':
      return [
        {
          type: 'message_start',
          message: { id: event.id, type: 'message', role: 'assistant', model: event.model, content: [], stop_reason: null, usage: event.usage },
        },
      ];
    case 'block_start':
      return [{ type: 'content_block_start', index: event.index, content_block: event.block }];
    case 'text_delta':
      return [{ type: 'content_block_delta', index: event.index, delta: { type: 'text_delta', text: event.text } }];
    case 'thinking_delta':
      return [{ type: 'content_block_delta', index: event.index, delta: { type: 'thinking_delta', thinking: event.thinking } }];
    case 'tool_input_delta':
      return [{ type: 'content_block_delta', index: event.index, delta: { type: 'input_json_delta', partial_json: event.partialJson } }];
    case 'block':
      return [{ type: 'content_block_stop', index: event.index }];
    case 'message_delta':
      return [
        { type: 'message_delta', delta: { stop_reason: event.stopReason, stop_sequence: event.stopSequence }, usage: event.usage },
      ];
    case 'message':
    case 'warning':
      return [];
    default:
      return assertNever(event);
  }
}
