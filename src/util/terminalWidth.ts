/**
 * How much room text takes in a terminal, and where it may be cut. Columns are measured by
 * `string-width` (East Asian wide and fullwidth characters, emoji, zero-width and combining marks,
 * escape sequences left out), a well-kept table where a hand-written one goes stale with each
 * Unicode version; graphemes (what a person sees as one character: `é` written as `e` + U+0301,
 * a flag, an emoji sequence) come from `Intl.Segmenter`. Text is cut only between graphemes.
 */
import stringWidth from 'string-width';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Columns `text` takes (escape sequences count for nothing). */
export function columnsOf(text: string): number {
  return stringWidth(text);
}

/** The graphemes of `text`, in order. */
export function graphemes(text: string): string[] {
  return Array.from(segmenter.segment(text), (s) => s.segment);
}

/** The index (UTF-16 units) where the grapheme after `at` ends; `text.length` at the end. */
export function nextGraphemeEnd(text: string, at: number): number {
  if (at >= text.length) return text.length;
  const segment = segmenter.segment(text).containing(at)!;
  return segment.index + segment.segment.length;
}

/** The index where the grapheme before `at` starts; 0 at the start. */
export function previousGraphemeStart(text: string, at: number): number {
  if (at <= 0) return 0;
  return segmenter.segment(text).containing(at - 1)!.index;
}

/**
 * One line (no newline, no escape sequences) hard-wrapped into rows of at most `width` columns,
 * never splitting a grapheme: a wide one that does not fit the row's last column starts the next
 * row, as a terminal does. An empty line is one empty row.
 */
export function wrapToColumns(line: string, width: number): string[] {
  const rows: string[] = [];
  let row = '';
  let used = 0;
  for (const g of graphemes(line)) {
    const w = stringWidth(g);
    if (used + w > width && row !== '') {
      rows.push(row);
      row = '';
      used = 0;
    }
    row += g;
    used += w;
  }
  rows.push(row);
  return rows;
}
