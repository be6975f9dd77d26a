/**
 * Lines the session's file edits added and removed (`get_usage`'s `total_lines_added` /
 * `total_lines_removed`, as Claude Code counts them from its Edit and Write results): the `+`
 * and `-` lines of each result's `structuredPatch`; a new file counts every line it was written with.
 */
import type { LoopEvent } from '../../loop/types.js';
import { subagentEventOf } from '../../agents/events.js';

export interface LineChanges {
  readonly added: number;
  readonly removed: number;
}

const NONE: LineChanges = { added: 0, removed: 0 };

/** Lines of a text: a last line without its newline counts, a final newline starts none. */
function linesOf(text: string): number {
  if (text === '') return 0;
  const breaks = text.split('\n').length - 1;
  return text.endsWith('\n') ? breaks : breaks + 1;
}

interface PatchLike {
  readonly lines?: unknown;
}

function countPatch(hunks: readonly PatchLike[]): LineChanges {
  let added = 0;
  let removed = 0;
  for (const hunk of hunks) {
    if (!Array.isArray(hunk.lines)) continue;
    for (const line of hunk.lines as unknown[]) {
      if (typeof line !== 'string') continue;
      if (line.startsWith('+')) added += 1;
      else if (line.startsWith('-')) removed += 1;
    }
  }
  return { added, removed };
}

/** The line changes of one tool's structured result (Edit's and Write's shapes; anything else changes nothing). */
export function lineChangesOf(structured: unknown): LineChanges {
  if (typeof structured !== 'object' || structured === null) return NONE;
  const result = structured as { type?: unknown; content?: unknown; structuredPatch?: unknown };
  if (result.type === 'create' && typeof result.content === 'string') {
    return { added: linesOf(result.content), removed: 0 };
  }
  return Array.isArray(result.structuredPatch) ? countPatch(result.structuredPatch as PatchLike[]) : NONE;
}

/** The line changes a loop event reports: a tool result of the run's own loop or of any subagent under it. */
export function lineChangesOfEvent(event: LoopEvent): LineChanges {
  let inner = event;
  for (let wrapped = subagentEventOf(inner); wrapped; wrapped = subagentEventOf(inner)) inner = wrapped.event;
  return inner.type === 'tool_result' && inner.structured !== undefined ? lineChangesOf(inner.structured) : NONE;
}
