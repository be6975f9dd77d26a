/**
 * Key presses, as Node's readline decodes them (`emitKeypressEvents`: escape sequences, bracketed
 * paste markers, modifiers), turned into the editor's own small vocabulary. Pure.
 *
 * Shift+Enter reaches a program only when the terminal reports it distinctly: as Meta+Enter
 * (`ESC CR`, what Claude Code's terminal setup configures), as Ctrl-J (a line feed), or, once the
 * view has asked for them, in the forms csiSequences.ts reads: xterm's "modifyOtherKeys" (mode 1,
 * which leaves Ctrl-C, Esc and Tab as they are) as `ESC[27;2;13~`, tmux with `extended-keys on`
 * as `ESC[13;2u`, and the kitty keyboard protocol (its "disambiguate" level) as `ESC[13;2u`, with
 * Esc and Ctrl+letters then also sent as `CSI u`. Any modified Enter is a newline. A plain Enter
 * is `CR` in raw mode. Where none of that reaches us, `\` + Enter and Meta+Enter still work.
 */
import { readCsi, type CsiKey, type CsiState } from './csiSequences.js';

export type EditorKey =
  | { readonly type: 'insert'; readonly text: string }
  | { readonly type: 'newline' }
  | { readonly type: 'submit' }
  | { readonly type: 'backspace' }
  | { readonly type: 'delete' }
  | { readonly type: 'left' }
  | { readonly type: 'right' }
  | { readonly type: 'home' }
  | { readonly type: 'end' }
  | { readonly type: 'up' }
  | { readonly type: 'down' }
  | { readonly type: 'kill_before' }
  | { readonly type: 'kill_after' }
  | { readonly type: 'kill_word' }
  | { readonly type: 'tab' }
  | { readonly type: 'escape' }
  | { readonly type: 'interrupt' }
  | { readonly type: 'eof' }
  | { readonly type: 'clear_screen' }
  | { readonly type: 'paste_start' }
  | { readonly type: 'paste_end' };

/** What readline's keypress event carries. */
export interface RawKey {
  readonly sequence?: string;
  readonly name?: string;
  readonly ctrl?: boolean;
  readonly meta?: boolean;
  readonly shift?: boolean;
  readonly code?: string;
}

const CTRL: Readonly<Record<string, EditorKey['type']>> = {
  c: 'interrupt',
  d: 'eof',
  l: 'clear_screen',
  a: 'home',
  e: 'end',
  b: 'left',
  f: 'right',
  u: 'kill_before',
  k: 'kill_after',
  w: 'kill_word',
  h: 'backspace',
  p: 'up',
  n: 'down',
};

const NAMED: Readonly<Record<string, EditorKey['type']>> = {
  backspace: 'backspace',
  delete: 'delete',
  left: 'left',
  right: 'right',
  home: 'home',
  end: 'end',
  up: 'up',
  down: 'down',
  tab: 'tab',
  escape: 'escape',
  'paste-start': 'paste_start',
  'paste-end': 'paste_end',
};

/** The editor key for one keypress, or undefined for keys the editor ignores. */
export function toEditorKey(str: string | undefined, key: RawKey | undefined): EditorKey | undefined {
  const name = key?.name;
  if (name === 'return') return key?.meta || key?.shift ? { type: 'newline' } : { type: 'submit' };
  if (name === 'enter') return { type: 'newline' };
  if (key?.ctrl && name !== undefined) {
    const mapped = CTRL[name];
    return mapped === undefined ? undefined : ({ type: mapped } as EditorKey);
  }
  if (name !== undefined && NAMED[name] !== undefined && !(name === 'tab' && key?.meta)) {
    return { type: NAMED[name] } as EditorKey;
  }
  if (key?.meta && name !== undefined) return undefined;
  const text = str ?? key?.sequence;
  // Printable text only: an unrecognized escape sequence must not land in the prompt.
  if (text === undefined || text === '' || /[\x00-\x08\x0b-\x1f\x7f]/.test(text)) return undefined;
  return { type: 'insert', text };
}

/** Where a modified key's sequence was cut by readline (csiSequences.ts), to be put back together. */
export type KeyDecodeState = CsiState;

export interface KeyDecodeStep {
  readonly state: KeyDecodeState;
  readonly key: EditorKey | undefined;
  /** The terminal answered a cursor position request (`CSI 6 n`): row and column, 1-based. */
  readonly cursorReport?: { readonly row: number; readonly column: number };
}

/** The editor key a CSI-encoded key stands for. */
function editorKeyOf(key: CsiKey): EditorKey | undefined {
  if (key.type !== 'ctrl') return key;
  // Ctrl-J is a line feed, a newline in the prompt, as it is when it comes as a byte.
  if (key.letter === 'j') return { type: 'newline' };
  const mapped = CTRL[key.letter];
  return mapped === undefined ? undefined : ({ type: mapped } as EditorKey);
}

/** One keypress, read with what came before it (pure): the editor key, if it completes one. */
export function decodeKey(state: KeyDecodeState, str: string | undefined, key: RawKey | undefined): KeyDecodeStep {
  const step = readCsi(state, str, key?.sequence);
  switch (step.type) {
    case 'pending':
      return { state: step.state, key: undefined };
    case 'key':
      return { state: undefined, key: toEditorKey(str, key) };
    case 'complete': {
      const meaning = step.meaning;
      if (meaning.type === 'cursor_report') return { state: undefined, key: undefined, cursorReport: { row: meaning.row, column: meaning.column } };
      return { state: undefined, key: meaning.type === 'key' ? editorKeyOf(meaning.key) : undefined };
    }
  }
}
