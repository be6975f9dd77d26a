/**
 * Text measured and wrapped for the terminal, pure. Widths count code points with escape
 * sequences left out; East Asian wide characters and emoji are counted as one column (a known
 * gap: such text may wrap one row later than the terminal does).
 */

const ANSI = /\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/g;

export function stripAnsi(text: string): string {
  return text.replace(ANSI, '');
}

export function visibleWidth(text: string): number {
  return [...stripAnsi(text)].length;
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
  while (i < line.length && shown < width - 1) {
    ANSI.lastIndex = i;
    const m = ANSI.exec(line);
    if (m && m.index === i) {
      out += m[0];
      i += m[0].length;
      continue;
    }
    const ch = String.fromCodePoint(line.codePointAt(i)!);
    out += ch;
    i += ch.length;
    shown += 1;
  }
  return `${out}…\x1b[0m`;
}

/** Hard-wraps plain text (no escape sequences) into rows of at most `width` code points. */
export function wrapPlain(text: string, width: number): string[] {
  const rows: string[] = [];
  for (const line of text.split('\n')) {
    const chars = [...line];
    if (chars.length === 0) rows.push('');
    for (let i = 0; i < chars.length; i += width) rows.push(chars.slice(i, i + width).join(''));
  }
  return rows;
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
  const width = Math.max(1, columns - 1 - indent.length);
  // Tabs (from pastes) are shown as one space, so each character is one column.
  const shown = text.replace(/\t/g, ' ');
  const rows: string[] = [];
  let cursorRow = 0;
  let cursorColumn = indent.length;
  let offset = 0;
  const lines = shown.split('\n');
  lines.forEach((line, lineIndex) => {
    const chars = [...line];
    const pieces = chars.length === 0 ? [''] : [];
    for (let i = 0; i < chars.length; i += width) pieces.push(chars.slice(i, i + width).join(''));
    // The cursor sits on this line: find its row and column (code points, not UTF-16 units).
    const lineEnd = offset + line.length;
    if (cursor >= offset && cursor <= lineEnd) {
      const before = [...line.slice(0, cursor - offset)].length;
      const piece = Math.min(Math.floor(before / width), Math.max(0, pieces.length - 1));
      const overflow = before - piece * width;
      // At the very end of a full row the cursor goes to the start of a fresh row.
      if (overflow === width && before === chars.length) {
        pieces.push('');
        cursorRow = rows.length + piece + 1;
        cursorColumn = indent.length;
      } else {
        cursorRow = rows.length + piece;
        cursorColumn = indent.length + overflow;
      }
    }
    pieces.forEach((piece, i) => rows.push(`${lineIndex === 0 && i === 0 ? marker : indent}${piece}`));
    offset = lineEnd + 1;
  });
  return { rows, cursorRow, cursorColumn };
}
