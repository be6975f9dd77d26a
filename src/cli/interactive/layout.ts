/**
 * Text measured and wrapped for the terminal, pure. Widths are terminal columns with escape
 * sequences left out (src/util/terminalWidth.ts: East Asian wide characters and emoji take two,
 * combining marks none), and text is cut only between graphemes, as the terminal draws it.
 */
import { columnsOf, graphemes, wrapToColumns } from '../../util/terminalWidth.js';

const ANSI = /\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

export function visibleWidth(text: string): number {
  return columnsOf(stripAnsi(text));
}

/** Rows a line of this width takes in a terminal `columns` wide (an empty line takes one). */
export function rowsOf(width: number, columns: number): number {
  return Math.max(1, Math.ceil(width / Math.max(1, columns)));
}

/**
 * Rows between the top of drawn lines (of these visible widths) and a cursor on line
 * `cursorLine` at `cursorColumn`, once the terminal is `columns` wide (it may have re-wrapped them).
 */
export function layoutRowsAbove(widths: readonly number[], cursorLine: number, cursorColumn: number, columns: number): number {
  let rows = 0;
  for (let i = 0; i < cursorLine && i < widths.length; i++) rows += rowsOf(widths[i]!, columns);
  return rows + Math.floor(cursorColumn / Math.max(1, columns));
}

/**
 * Cuts a (possibly colored) line to at most `width` visible columns, keeping its escape
 * sequences (so a color started before the cut is still reset after it) and marking the cut.
 */
export function truncateLine(line: string, width: number): string {
  if (visibleWidth(line) <= width) return line;
  let out = '';
  let shown = 0;
  let i = 0;
  while (i < line.length) {
    ANSI.lastIndex = i;
    const m = ANSI.exec(line);
    if (m && m.index === i) {
      out += m[0];
      i += m[0].length;
      continue;
    }
    // The next grapheme, up to the next escape sequence (if any) – one column or two.
    const next = m ? m.index : line.length;
    const grapheme = graphemes(line.slice(i, next))[0]!;
    const w = columnsOf(grapheme);
    if (shown + w > width - 1) break;
    out += grapheme;
    i += grapheme.length;
    shown += w;
  }
  return `${out}…\x1b[0m`;
}

/** Hard-wraps plain text (no escape sequences) into rows of at most `width` columns. */
export function wrapPlain(text: string, width: number): string[] {
  return text.split('\n').flatMap((line) => wrapToColumns(line, width));
}

export interface EditorLayout {
  readonly rows: readonly string[];
  readonly cursorRow: number;
  readonly cursorColumn: number;
}

/**
 * The prompt's rows: the marker before the first line, an indent of the same width before the
 * others, each line hard-wrapped to `columns - 1` (the last column is left free, so a full row
 * never leaves the terminal in its pending-wrap state), and where the cursor goes.
 */
export function layoutEditor(marker: string, text: string, cursor: number, columns: number): EditorLayout {
  const indent = ' '.repeat(visibleWidth(marker));
  // Two at least: a wide character must fit a row.
  const width = Math.max(2, columns - 1 - indent.length);
  // Tabs (from pastes) are shown as one space (same length, so `cursor` still indexes `shown`).
  const shown = text.replace(/\t/g, ' ');
  const rows: string[] = [];
  let cursorRow = 0;
  let cursorColumn = indent.length;
  let offset = 0;
  shown.split('\n').forEach((line, lineIndex) => {
    const pieces = wrapToColumns(line, width);
    const lineEnd = offset + line.length;
    if (cursor >= offset && cursor <= lineEnd) {
      // The piece the cursor is in (between two pieces it is at the start of the later one).
      let at = cursor - offset;
      let piece = 0;
      while (piece < pieces.length - 1 && at >= pieces[piece]!.length) at -= pieces[piece++]!.length;
      const column = columnsOf(pieces[piece]!.slice(0, at));
      // At the very end of a full row the cursor goes to the start of a fresh row.
      if (piece === pieces.length - 1 && at === pieces[piece]!.length && column >= width) {
        pieces.push('');
        cursorRow = rows.length + piece + 1;
        cursorColumn = indent.length;
      } else {
        cursorRow = rows.length + piece;
        cursorColumn = indent.length + column;
      }
    }
    pieces.forEach((piece, i) => rows.push(`${lineIndex === 0 && i === 0 ? marker : indent}${piece}`));
    offset = lineEnd + 1;
  });
  return { rows, cursorRow, cursorColumn };
}
