/** `ofLoopType(...types)`: the loop events of the given types, typed as exactly those. */
import { filter, type OperatorFunction } from 'rxjs';
import type { LoopEvent, LoopEventOf, LoopEventType } from '../src/loop/types.js';

/**
 * Keeps the loop events whose `type` is one of `types`, narrowing the stream's type to them.
 *
 * <span class="informal">redux-observable's `ofType` for the loop: a UI subscribes to what it
 * renders without a `switch` or a cast.</span>
 *
 * ```
 * source:                           -i-m-t-r-m-X|     i iteration_start, t tool_start, r tool_result, X terminal
 * ofLoopType('tool_start', 'tool_result')
 * result:                           -----t-r----|
 * ```
 *
 * ## Example
 * ```ts
 * import { agentLoop } from 'rxagent';
 * import { ofLoopType } from 'rxagent/operators';
 *
 * agentLoop(options).pipe(ofLoopType('tool_result')).subscribe((e) => console.log(e.name, e.result.is_error));
 * ```
 *
 * @see {@link textDeltas} for the visible text, {@link subagentEvents} for subagents' events.
 * @param types The `type`s to keep (at least one).
 * @returns The events of those types.
 */
export function ofLoopType<K extends LoopEventType>(...types: [K, ...K[]]): OperatorFunction<LoopEvent, LoopEventOf<K>> {
  const [first] = types;
  // One type is the common case: a plain comparison instead of a search (as `ofType` does).
  if (types.length === 1) return filter((event): event is LoopEventOf<K> => event.type === first);
  const wanted: ReadonlySet<LoopEventType> = new Set(types);
  return filter((event): event is LoopEventOf<K> => wanted.has(event.type));
}
