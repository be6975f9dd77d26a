/**
 * A Markdown table laid out for the terminal, pure. marked-terminal draws tables with cli-table3,
 * which measures cells with its own string-width 4: newer emoji (🫠), ZWJ sequences (🧑‍💻 counted as
 * 5 columns), zero-width and Thai combining characters come out wrong and the borders no longer
 * line up. Cells here are measured by src/util/terminalWidth.ts, the same measure as the rest of
 * the view. The look follows marked-terminal's (box borders, a line between rows); a table wider
 * than the terminal gets its widest columns narrowed and their cells wrapped (as plain text: a
 * style cannot be carried across a wrapped cell's rows reliably), instead of the terminal
 * wrapping every row into a tangle.
 */
import { stripAnsi, visibleWidth, wrapPlain } from './layout.js';

export type CellAlign = 'left' | 'center' | 'right' | null;

export interface TableStyle {
  readonly border: (text: string) => string;
  readonly head: (text: string) => string;
}

/** Rows of text for one table: `header` and `rows` are rendered (possibly styled) cell texts. */
export function layoutTable(
  header: readonly string[],
  rows: ReadonlyArray<readonly string[]>,
  align: readonly CellAlign[],
  columns: number,
  style: TableStyle,
): string {
  const count = Math.max(header.length, ...rows.map((r) => r.length));
  const all = [header, ...rows].map((r) => Array.from({ length: count }, (_, i) => (r[i] ?? '').replace(/\n/g, ' ')));
  const widths = fitWidths(
    Array.from({ length: count }, (_, i) => Math.max(1, ...all.map((r) => visibleWidth(r[i]!)))),
    // Each column has a space either side and a border after it; the row starts with one.
    columns - 1 - 3 * count,
  );
  const line = (left: string, mid: string, right: string) => style.border(`${left}${widths.map((w) => '─'.repeat(w + 2)).join(mid)}${right}`);
  const out: string[] = [line('┌', '┬', '┐')];
  all.forEach((cells, r) => {
    if (r > 0) out.push(line('├', '┼', '┤'));
    out.push(...rowLines(cells, widths, align, r === 0 ? style.head : (t) => t, style.border));
  });
  out.push(line('└', '┴', '┘'));
  return out.join('\n');
}

/** Narrows the widest columns, one column at a time, until the total fits `room` (at least 3 each). */
function fitWidths(wanted: readonly number[], room: number): number[] {
  const widths = [...wanted];
  let total = widths.reduce((a, b) => a + b, 0);
  while (total > room) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest]! <= 3) break; // a terminal this narrow wraps the table anyway
    widths[widest]! -= 1;
    total -= 1;
  }
  return widths;
}

/** One table row as terminal lines: cells too wide for their column wrap onto more lines. */
function rowLines(cells: readonly string[], widths: readonly number[], align: readonly CellAlign[], paint: (t: string) => string, border: (t: string) => string): string[] {
  const wrapped = cells.map((cell, i) => (visibleWidth(cell) <= widths[i]! ? [cell] : wrapPlain(stripAnsi(cell), widths[i]!)));
  const height = Math.max(...wrapped.map((w) => w.length));
  const lines: string[] = [];
  for (let l = 0; l < height; l++) {
    const parts = wrapped.map((w, i) => ` ${paint(padCell(w[l] ?? '', widths[i]!, align[i] ?? null))} `);
    lines.push(`${border('│')}${parts.join(border('│'))}${border('│')}`);
  }
  return lines;
}

function padCell(text: string, width: number, align: CellAlign): string {
  const room = Math.max(0, width - visibleWidth(text));
  if (align === 'right') return ' '.repeat(room) + text;
  if (align === 'center') return ' '.repeat(Math.floor(room / 2)) + text + ' '.repeat(Math.ceil(room / 2));
  return text + ' '.repeat(room);
}
