/** `subagentEvents()`: what the subagents of an agent tree did, unwrapped from the parent's events. */
import { filter, map, pipe, type OperatorFunction } from 'rxjs';
import { subagentEventOf, type SubagentEventData } from '../src/agents/events.js';
import type { LoopEvent } from '../src/loop/types.js';

/**
 * The subagent envelopes carried by a tree's events, each the one closest to where the event
 * happened.
 *
 * <span class="informal">A child's event reaches the parent's consumers as a `tool_progress` of
 * the Agent call that started it; a grandchild's is wrapped twice. This selector unwraps to the
 * innermost envelope: its `event` is the subagent's own event, `agentDepth` says how deep it
 * ran, `parentToolUseId` names the Agent call it belongs to.</span>
 *
 * ```
 * source:             -i-p-q-r-X|     p child event, q grandchild event (wrapped twice), r tool_result
 * subagentEvents()
 * result:             ---a-b----|     a p's envelope (agentDepth 1), b q's inner envelope (agentDepth 2)
 * ```
 *
 * ## Example
 * ```ts
 * import { createAgentTreeRun } from 'rxagent';
 * import { subagentEvents } from 'rxagent/operators';
 *
 * createAgentTreeRun(options).events$.pipe(subagentEvents())
 *   .subscribe(({ agentType, agentDepth, event }) => console.log(agentDepth, agentType, event.type));
 * ```
 *
 * @see {@link ofLoopType} for the parent's own events.
 * @returns One envelope per event that came from a subagent.
 */
export function subagentEvents(): OperatorFunction<LoopEvent, SubagentEventData> {
  return pipe(
    map(innermost),
    filter((envelope): envelope is SubagentEventData => envelope !== undefined),
  );
}

function innermost(event: LoopEvent): SubagentEventData | undefined {
  let envelope = subagentEventOf(event);
  for (let inner = envelope && subagentEventOf(envelope.event); inner; inner = subagentEventOf(inner.event)) envelope = inner;
  return envelope;
}
