/**
 * The hunks of a file change, as Claude Code's Edit and Write results carry them
 * (`structuredPatch`: jsdiff's hunk shape, 3 lines of context). jsdiff (`diff`) is already the
 * interactive view's differ; a hand-written line diff would be wrong on repeated lines.
 */
import { structuredPatch } from 'diff';

export interface PatchHunk {
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  readonly lines: string[];
}

/** Bounds the diff's work (edit distance), so a rewrite of a huge file cannot stall the tool. */
const MAX_EDIT_LENGTH = 20_000;

/** The hunks turning `before` into `after`; [] when nothing changed or the change is too big to diff. */
export function filePatch(before: string, after: string): PatchHunk[] {
  if (before === after) return [];
  const patch = structuredPatch('a', 'b', before, after, '', '', { context: 3, maxEditLength: MAX_EDIT_LENGTH });
  return patch ? patch.hunks.map((h) => ({ oldStart: h.oldStart, oldLines: h.oldLines, newStart: h.newStart, newLines: h.newLines, lines: h.lines })) : [];
}
