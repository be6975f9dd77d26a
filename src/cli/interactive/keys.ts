/**
 * Key presses, as Node's readline decodes them (`emitKeypressEvents`: escape sequences, bracketed
 * paste markers, modifiers), turned into the editor's own small vocabulary. Pure.
 *
 * Shift+Enter reaches a program only when the terminal reports it distinctly: as Meta+Enter
 * (`ESC CR`, what Claude Code's terminal setup configures), as Ctrl-J (a line feed), or, once the
 * view has asked for xterm's "modifyOtherKeys" (mode 1, which leaves Ctrl-C, Esc and Tab as they
 * are), as `ESC[13;2u` (tmux with `extended-keys on`, CSI-u terminals) or `ESC[27;2;13~` (xterm).
 * Any modified Enter is a newline. A plain Enter is `CR` in raw mode.
 */
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
  if (key?.code !== undefined && /^\[13;\d+u$/.test(key.code)) return { type: 'newline' };
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

/**
 * xterm's modifyOtherKeys form `ESC [ 27 ; <modifier> ; <key code> ~` while it is being read:
 * Node's readline splits it into `ESC[27;<modifier>;` and then the digits and `~` as keys of
 * their own (they would be typed into the prompt).
 */
export type KeyDecodeState = { readonly modifier: number; readonly digits: string } | undefined;

export interface KeyDecodeStep {
  readonly state: KeyDecodeState;
  readonly key: EditorKey | undefined;
}

/** The key an xterm extended report stands for (modifier 2: Shift; Enter is 13). */
function extendedKey(modifier: number, code: number): EditorKey | undefined {
  if (code === 13) return modifier > 1 ? { type: 'newline' } : { type: 'submit' };
  // Shift alone with a printable key is that key's shifted text (xterm sends the shifted code).
  if (modifier === 2 && code >= 0x20 && code !== 0x7f && code <= 0x10ffff) return { type: 'insert', text: String.fromCodePoint(code) };
  return undefined;
}

/** One keypress, read with what came before it (pure): the editor key, if it completes one. */
export function decodeKey(state: KeyDecodeState, str: string | undefined, key: RawKey | undefined): KeyDecodeStep {
  const start = key?.code === undefined ? null : /^\[27;(\d+);$/.exec(key.code);
  if (start) return { state: { modifier: Number(start[1]), digits: '' }, key: undefined };
  if (state !== undefined) {
    const text = str ?? key?.sequence ?? '';
    if (/^\d$/.test(text) && state.digits.length < 7) return { state: { ...state, digits: state.digits + text }, key: undefined };
    if (text === '~' && state.digits !== '') return { state: undefined, key: extendedKey(state.modifier, Number(state.digits)) };
    // Not that form after all: what was read of it is dropped, this key counts as itself.
  }
  return { state: undefined, key: toEditorKey(str, key) };
}
