/**
 * How much room text takes in a terminal, and where it may be cut. Columns are measured by
 * `string-width` (East Asian wide and fullwidth characters, emoji, zero-width and combining marks,
 * escape sequences left out), a well-kept table where a hand-written one goes stale with each
 * Unicode version; graphemes (what a person sees as one character: `é` written as `e` + U+0301,
 * a flag, an emoji sequence) come from `Intl.Segmenter`. Text is cut only between graphemes.
 */
import { stripVTControlCharacters } from 'node:util';
import stringWidth from 'string-width';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * How the terminal itself measures a grapheme. Terminals disagree on emoji sequences:
 * - 'grapheme': the whole grapheme as one character, as string-width measures it (`❤️` with its
 *   emoji variation selector is 2 columns): kitty, WezTerm, Ghostty, iTerm2, recent VTE.
 * - 'codepoint': each code point by its own width, with combining marks, variation selectors and
 *   what follows a zero-width joiner drawn in the cell before: tmux 3.3a, xterm, older terminals.
 *   There `❤️` is 1 column and `✌🏽` 3 (measured in tmux 3.3a).
 * The interactive view asks the terminal which it is (ttyFrontEnd.ts) and sets it here once, for
 * the whole process: one terminal per process, and every width of the view must agree with it.
 */
export type WidthModel = 'grapheme' | 'codepoint';
let model: WidthModel = 'grapheme';

export function setWidthModel(next: WidthModel): void {
  model = next;
}

export function widthModel(): WidthModel {
  return model;
}

/** Columns `text` takes (escape sequences count for nothing), as the terminal draws it. */
export function columnsOf(text: string): number {
  if (model === 'grapheme') return stringWidth(text);
  let columns = 0;
  for (const g of graphemes(stripVTControlCharacters(text))) columns += codepointColumns(g);
  return columns;
}

const REGIONAL_PAIR = /^\p{Regional_Indicator}{2}$/u;

/** A grapheme's columns where the terminal measures code point by code point ('codepoint'). */
function codepointColumns(grapheme: string): number {
  if (REGIONAL_PAIR.test(grapheme)) return 2; // a flag is one wide character even there
  let columns = 0;
  let joined = false;
  for (const point of grapheme) {
    // The code point after a zero-width joiner is drawn into the same cell as the one before.
    if (joined) {
      joined = false;
      continue;
    }
    if (point === '\u200d') {
      joined = true;
      continue;
    }
    columns += stringWidth(point);
  }
  return columns;
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
    const w = columnsOf(g);
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
