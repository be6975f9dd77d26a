/**
 * Text shown to a person who must judge it (an approval prompt's command, a path), made safe to
 * print: nothing in it may act on the terminal or hide from the reader.
 *
 * - C0 and C1 control characters and DEL (ESC starts sequences that recolor, move the cursor,
 *   retitle the window or rewrite what was shown; CR returns to the line's start and overprints;
 *   BS erases) are written out: `\t`, `\r`, `\e`, `\x07`, `\x9b`.
 * - Bidirectional controls (Trojan Source: U+202A-U+202E, U+2066-U+2069, U+200E/U+200F, U+061C),
 *   zero-width and invisible formatting characters (U+200B-U+200D, U+2060-U+2064, U+FEFF, U+00AD),
 *   line/paragraph separators and lone surrogates are written out as `\uXXXX`.
 * - A newline stays a line break unless `newlines: 'escape'` (multi-line commands are common
 *   and readable as lines); a backslash stays itself, so `escaped` tells whether anything changed.
 */

import { wrapToColumns } from './terminalWidth.js';

export interface EscapedText {
  /** The text with every hidden or active character written out. */
  readonly text: string;
  /** How many characters were written out (0: the text is shown as it is). */
  readonly escaped: number;
}

export interface EscapeOptions {
  /** `keep` (default): a newline stays a line break; `escape`: shown as `\n`. */
  readonly newlines?: 'keep' | 'escape';
}

const NAMED: Readonly<Record<number, string>> = { 0x09: '\\t', 0x0a: '\\n', 0x0d: '\\r', 0x1b: '\\e' };

/** Whether code unit/point `c` must be written out rather than printed. */
function isHidden(c: number): boolean {
  if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return true; // C0, DEL, C1
  if (c === 0xad || c === 0x061c || c === 0x180e) return true; // soft hyphen, Arabic letter mark, Mongolian vowel separator
  if (c >= 0x200b && c <= 0x200f) return true; // zero-width space/joiners, LRM/RLM
  if (c >= 0x2028 && c <= 0x202e) return true; // separators, bidi embeddings and overrides
  if (c >= 0x2060 && c <= 0x206f) return true; // word joiner, invisible operators, bidi isolates
  if (c === 0xfeff || (c >= 0xfff9 && c <= 0xfffb)) return true; // BOM, interlinear annotations
  if (c >= 0xe0000 && c <= 0xe007f) return true; // tag characters (invisible text)
  return c >= 0xd800 && c <= 0xdfff; // a lone surrogate (a paired one never reaches here)
}

function writtenOut(c: number): string {
  const named = NAMED[c];
  if (named !== undefined) return named;
  if (c <= 0xff) return `\\x${c.toString(16).padStart(2, '0')}`;
  if (c <= 0xffff) return `\\u${c.toString(16).padStart(4, '0')}`;
  return `\\u{${c.toString(16)}}`;
}

/** Escapes `text` for a terminal (see the module comment). */
export function escapeForTerminal(text: string, options: EscapeOptions = {}): EscapedText {
  const keepNewlines = (options.newlines ?? 'keep') === 'keep';
  let out = '';
  let escaped = 0;
  // for…of walks code points: a paired surrogate arrives whole, a lone one alone.
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if ((c === 0x0a && keepNewlines) || !isHidden(c)) {
      out += ch;
      continue;
    }
    out += writtenOut(c);
    escaped++;
  }
  return { text: out, escaped };
}

/** A command laid out for an approval prompt, in parts a prompt can style apart. */
export interface ApprovalParts {
  /** The whole command (never cut), escaped, each line wrapped at the width less the indent. */
  readonly rows: readonly string[];
  /** Says how many characters were written out; absent when none were. */
  readonly note?: string;
  /** `in <dir>`, escaped on one line. */
  readonly cwd: string;
}

/**
 * The parts of a command's approval prompt (see formatCommandForApproval for the joined text).
 * A command has no words to respect, so rows are cut anywhere, but only between graphemes and
 * at the width in terminal columns (a CJK character takes two).
 */
export function approvalParts(command: string, options: { readonly cwd: string; readonly width?: number }): ApprovalParts {
  const width = Math.max(20, options.width ?? 80);
  const { text, escaped } = escapeForTerminal(command);
  const rows = text.split('\n').flatMap((line) => wrapToColumns(line, width - 2));
  const cwd = `in ${escapeForTerminal(options.cwd, { newlines: 'escape' }).text}`;
  if (escaped === 0) return { rows, cwd };
  return { rows, note: `(${escaped} control or invisible character${escaped === 1 ? '' : 's'} shown escaped)`, cwd };
}

/**
 * A command for an approval prompt: whole (never cut), escaped, each line wrapped at `width`
 * columns with continuation lines indented, and the directory it would run in.
 */
export function formatCommandForApproval(command: string, options: { readonly cwd: string; readonly width?: number }): string {
  const { rows, note, cwd } = approvalParts(command, options);
  return [...rows, ...(note === undefined ? [] : [note]), cwd].map((line) => `  ${line}`).join('\n');
}

