/** `textDeltas()`: the visible text of the loop's responses, chunk by chunk. */
import { filter, map, pipe, type OperatorFunction } from 'rxjs';
import type { LoopEvent, LoopEventOf } from '../src/loop/types.js';

type TextDeltaEvent = LoopEventOf<'model'> & { readonly event: { readonly type: 'text_delta'; readonly text: string } };

/**
 * The text each `text_delta` adds, as plain strings, in order.
 *
 * <span class="informal">What a terminal UI prints as it streams. Thinking, tool input and
 * subagents' text are not included.</span>
 *
 * ```
 * source:        -i-d-d-a-d-X|     d model text_delta ("He", "llo", "!"), a assistant_message
 * textDeltas()
 * result:        ---x-y---z--|     x "He", y "llo", z "!"
 * ```
 *
 * __Warning:__ a `stream_retry` event retracts the text shown since the last `message_start`
 * (the response is streamed again): a UI that cannot erase should render `assistant_message`s.
 *
 * ## Example
 * ```ts
 * import { agentLoop } from 'rxagent';
 * import { textDeltas } from 'rxagent/operators';
 *
 * agentLoop(options).pipe(textDeltas()).subscribe((text) => process.stdout.write(text));
 * ```
 *
 * @see {@link ofLoopType} for other events.
 * @returns The text chunks.
 */
export function textDeltas(): OperatorFunction<LoopEvent, string> {
  return pipe(
    filter((e): e is TextDeltaEvent => e.type === 'model' && e.event.type === 'text_delta'),
    map((e) => e.event.text),
  );
}
