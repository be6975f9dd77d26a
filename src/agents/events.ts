/**
 * How a subagent's events reach the parent's consumers: every event of a child loop is wrapped
 * in a `SubagentEventData` and emitted by the parent as a `tool_progress` event of the Agent call
 * that started it (`toolUseId` = the parent's tool_use id). Foreground children report through
 * the tool's progress; background children through the parent tree's output, with the same
 * shape. A grandchild's events arrive wrapped twice (a child's `tool_progress` wrapped again):
 * `parentToolUseId` always names the immediate parent's Agent call, as stream-json's
 * `parent_tool_use_id` does.
 */
import type { LoopEvent } from '../loop/types.js';

/** A subagent's event as reported in its Agent call's progress. */
export interface SubagentEventData {
  readonly type: 'subagent_event';
  readonly agentId: string;
  /** The definition's name (`subagent_type`). */
  readonly agentType: string;
  /** 1 for a child of the top-level loop, 2 for a grandchild, ... */
  readonly agentDepth: number;
  /** The tool_use id of the Agent call that started this subagent. */
  readonly parentToolUseId: string;
  readonly background: boolean;
  /** The child's own event, unchanged (its own chainId). */
  readonly event: LoopEvent;
}

/** Whether a `tool_progress` payload is a {@link SubagentEventData}. */
export function isSubagentEventData(data: unknown): data is SubagentEventData {
  return typeof data === 'object' && data !== null && (data as { type?: unknown }).type === 'subagent_event' && 'event' in data;
}

/** The subagent envelope of a parent event, if it is one. */
export function subagentEventOf(event: LoopEvent): SubagentEventData | undefined {
  return event.type === 'tool_progress' && isSubagentEventData(event.data) ? event.data : undefined;
}
