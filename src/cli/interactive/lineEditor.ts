/**
 * The prompt's line editor as a pure reducer: (state, key) -> state and at most one effect for
 * the caller (submit the text, interrupt, exit, clear the screen...). Multi-line: the text may
 * hold newlines (a bracketed paste, Shift/Meta+Enter, Ctrl-J, or `\` before Enter); Enter
 * submits the whole text at once, so a pasted block is one prompt, in its order. Up/Down move
 * between lines of the text, and past its first/last line through the history.
 */
import { assertNever } from '../../util/assertNever.js';
import { columnsOf, nextGraphemeEnd, previousGraphemeStart } from '../../util/terminalWidth.js';
import type { EditorKey } from './keys.js';

export interface EditorState {
  readonly text: string;
  /** Index into `text` (UTF-16 units), 0..text.length. */
  readonly cursor: number;
  /** Earlier prompts, oldest first. */
  readonly history: readonly string[];
  /** Which history entry is shown while browsing; undefined when editing a fresh text. */
  readonly historyIndex: number | undefined;
  /** The text being written before browsing started, restored by going down past the newest entry. */
  readonly draft: string;
  /** Inside a bracketed paste: every key is text. */
  readonly pasting: boolean;
  /** The last pasted character was a CR (a CR LF pair is one newline). */
  readonly pastedCR: boolean;
}

export type EditorEffect =
  | { readonly type: 'submit'; readonly text: string }
  | { readonly type: 'interrupt' }
  | { readonly type: 'escape' }
  | { readonly type: 'exit' }
  | { readonly type: 'clear_screen' };

export interface EditorStep {
  readonly state: EditorState;
  readonly effect?: EditorEffect;
}

/** Completions of the text so far (Tab); the editor takes a single one, or the common prefix. */
export type Completer = (text: string) => readonly string[];

export function emptyEditor(history: readonly string[] = []): EditorState {
  return { text: '', cursor: 0, history, historyIndex: undefined, draft: '', pasting: false, pastedCR: false };
}

const insert = (s: EditorState, text: string): EditorState => ({
  ...s,
  text: s.text.slice(0, s.cursor) + text + s.text.slice(s.cursor),
  cursor: s.cursor + text.length,
  historyIndex: undefined,
});

const lineStart = (text: string, at: number) => text.lastIndexOf('\n', at - 1) + 1;
const lineEnd = (text: string, at: number) => {
  const i = text.indexOf('\n', at);
  return i === -1 ? text.length : i;
};

/** The index in the line from `start` to `end` whose text before it is `column` columns wide, or as near as the line allows. */
function atColumn(text: string, start: number, end: number, column: number): number {
  let at = start;
  while (at < end) {
    const next = nextGraphemeEnd(text, at);
    if (next > end || columnsOf(text.slice(start, next)) > column) break;
    at = next;
  }
  return at;
}

/** The cursor moved one line up or down, keeping its column (in terminal columns) where the line allows. */
function verticalMove(s: EditorState, direction: -1 | 1): number | undefined {
  const start = lineStart(s.text, s.cursor);
  const column = columnsOf(s.text.slice(start, s.cursor));
  if (direction === -1) {
    if (start === 0) return undefined;
    const prevStart = lineStart(s.text, start - 1);
    return atColumn(s.text, prevStart, start - 1, column);
  }
  const end = lineEnd(s.text, s.cursor);
  if (end === s.text.length) return undefined;
  const nextStart = end + 1;
  return atColumn(s.text, nextStart, lineEnd(s.text, nextStart), column);
}

function browse(s: EditorState, direction: -1 | 1): EditorState {
  if (s.history.length === 0) return s;
  const from = s.historyIndex ?? s.history.length;
  const to = Math.max(0, Math.min(s.history.length, from + direction));
  if (to === from) return s;
  const draft = s.historyIndex === undefined ? s.text : s.draft;
  const text = to === s.history.length ? draft : s.history[to]!;
  return { ...s, text, cursor: text.length, historyIndex: to === s.history.length ? undefined : to, draft };
}

function commonPrefix(words: readonly string[]): string {
  let prefix = words[0] ?? '';
  for (const w of words) while (!w.startsWith(prefix)) prefix = prefix.slice(0, -1);
  return prefix;
}

function pasted(s: EditorState, key: EditorKey): EditorState {
  switch (key.type) {
    case 'paste_end':
      return { ...s, pasting: false, pastedCR: false };
    case 'insert':
      // Terminals send line ends inside a paste as CR; the prompt keeps them as newlines.
      return { ...insert(s, key.text.replace(/\r\n?/g, '\n')), pasting: true, pastedCR: key.text.endsWith('\r') };
    case 'submit':
      return { ...insert(s, '\n'), pasting: true, pastedCR: true };
    case 'newline':
      return s.pastedCR ? { ...s, pastedCR: false } : { ...insert(s, '\n'), pasting: true, pastedCR: false };
    case 'tab':
      return { ...insert(s, '\t'), pasting: true, pastedCR: false };
    default:
      // Control keys inside a paste are not commands (a pasted ESC must not interrupt a turn).
      return s;
  }
}

/** One key applied to the editor. */
export function reduceEditor(s: EditorState, key: EditorKey, complete?: Completer): EditorStep {
  if (s.pasting) return { state: pasted(s, key) };
  switch (key.type) {
    case 'insert':
      return { state: insert(s, key.text.replace(/\r\n?/g, '\n')) };
    case 'newline':
      return { state: insert(s, '\n') };
    case 'submit': {
      // `\` right before the cursor and Enter: a newline instead of a submission (Claude Code's habit).
      if (s.cursor > 0 && s.text[s.cursor - 1] === '\\') {
        const text = `${s.text.slice(0, s.cursor - 1)}\n${s.text.slice(s.cursor)}`;
        return { state: { ...s, text, historyIndex: undefined } };
      }
      if (s.text.trim() === '') return { state: { ...s, text: '', cursor: 0 } };
      const history = s.history[s.history.length - 1] === s.text ? s.history : [...s.history, s.text];
      return { state: emptyEditor(history), effect: { type: 'submit', text: s.text } };
    }
    // Moves and deletions go by grapheme (a CJK character, an emoji, `e` + a combining accent),
    // never leaving half of one behind or the cursor inside one.
    case 'backspace': {
      if (s.cursor === 0) return { state: s };
      const from = previousGraphemeStart(s.text, s.cursor);
      return { state: { ...s, text: s.text.slice(0, from) + s.text.slice(s.cursor), cursor: from } };
    }
    case 'delete':
      return { state: { ...s, text: s.text.slice(0, s.cursor) + s.text.slice(nextGraphemeEnd(s.text, s.cursor)) } };
    case 'left':
      return { state: { ...s, cursor: previousGraphemeStart(s.text, s.cursor) } };
    case 'right':
      return { state: { ...s, cursor: nextGraphemeEnd(s.text, s.cursor) } };
    case 'home':
      return { state: { ...s, cursor: lineStart(s.text, s.cursor) } };
    case 'end':
      return { state: { ...s, cursor: lineEnd(s.text, s.cursor) } };
    case 'up':
    case 'down': {
      const direction = key.type === 'up' ? -1 : 1;
      const moved = verticalMove(s, direction);
      return { state: moved === undefined ? browse(s, direction) : { ...s, cursor: moved } };
    }
    case 'kill_before': {
      const start = lineStart(s.text, s.cursor);
      return { state: { ...s, text: s.text.slice(0, start) + s.text.slice(s.cursor), cursor: start } };
    }
    case 'kill_after':
      return { state: { ...s, text: s.text.slice(0, s.cursor) + s.text.slice(lineEnd(s.text, s.cursor)) } };
    case 'kill_word': {
      const before = s.text.slice(0, s.cursor).replace(/\S+\s*$|\s+$/, '');
      return { state: { ...s, text: before + s.text.slice(s.cursor), cursor: before.length } };
    }
    case 'tab': {
      if (!complete || s.cursor !== s.text.length) return { state: s };
      const options = complete(s.text);
      const prefix = commonPrefix(options);
      if (options.length === 0 || prefix.length <= s.text.length) return { state: s };
      const text = options.length === 1 ? `${prefix} ` : prefix;
      return { state: { ...s, text, cursor: text.length } };
    }
    case 'escape':
      return { state: s, effect: { type: 'escape' } };
    case 'interrupt':
      // Ctrl-C clears what was typed; with nothing typed it is the caller's (interrupt or exit).
      return s.text !== '' ? { state: { ...s, text: '', cursor: 0, historyIndex: undefined } } : { state: s, effect: { type: 'interrupt' } };
    case 'eof':
      if (s.text !== '') return { state: { ...s, text: s.text.slice(0, s.cursor) + s.text.slice(nextGraphemeEnd(s.text, s.cursor)) } };
      return { state: s, effect: { type: 'exit' } };
    case 'clear_screen':
      return { state: s, effect: { type: 'clear_screen' } };
    case 'paste_start':
      return { state: { ...s, pasting: true, pastedCR: false } };
    case 'paste_end':
      return { state: s };
    default:
      return assertNever(key, 'editor key');
  }
}
