/**
 * The diff a tool card shows for a file change: Edit's `old_string` -> `new_string` as a line diff
 * (common lines kept as context, so a one-line change inside a block reads as one line), Write's
 * `content` as added lines. Long sides are cut to keep a card small; the cut is said in a line.
 */
import type { DiffLine } from './types.js';

/** Lines shown per card at most. */
export const MAX_DIFF_LINES = 40;
/** Above this many lines on a side the LCS table (n*m) is not worth it: show old then new. */
const LCS_LIMIT = 400;

function cut(lines: DiffLine[]): DiffLine[] {
  if (lines.length <= MAX_DIFF_LINES) return lines;
  return [...lines.slice(0, MAX_DIFF_LINES), { sign: ' ', text: `... (${lines.length - MAX_DIFF_LINES} more lines)` }];
}

/** A longest-common-subsequence line diff of two texts. */
export function lineDiff(before: string, after: string): DiffLine[] {
  const a = before.split('\n');
  const b = after.split('\n');
  if (a.length > LCS_LIMIT || b.length > LCS_LIMIT) {
    return [...a.map((text) => ({ sign: '-' as const, text })), ...b.map((text) => ({ sign: '+' as const, text }))];
  }
  // lcs[i][j]: length of the LCS of a[i..] and b[j..].
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push({ sign: ' ', text: a[i]! });
      i++;
      j++;
    } else if (i < a.length && (j === b.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      // Removals first, as diffs are read: what went, then what came.
      out.push({ sign: '-', text: a[i]! });
      i++;
    } else {
      out.push({ sign: '+', text: b[j]! });
      j++;
    }
  }
  return out;
}

/** The diff of an Edit or Write call's input, or undefined for other tools (or input of another shape). */
export function fileChangeDiff(toolName: string, input: unknown): DiffLine[] | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const rec = input as Record<string, unknown>;
  if (toolName === 'Edit' && typeof rec['old_string'] === 'string' && typeof rec['new_string'] === 'string') {
    return cut(lineDiff(rec['old_string'], rec['new_string']));
  }
  if (toolName === 'Write' && typeof rec['content'] === 'string') {
    return cut(rec['content'].split('\n').map((text) => ({ sign: '+' as const, text })));
  }
  return undefined;
}
