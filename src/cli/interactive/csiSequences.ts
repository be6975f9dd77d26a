/**
 * The CSI sequences a terminal sends that Node's readline does not decode, read back into what
 * they stand for. Pure.
 *
 * - Keys with modifiers: xterm's modifyOtherKeys form `CSI 27 ; <mods> ; <code> ~` and the
 *   "CSI u" form `CSI <code>[:<alternates>] ; <mods>[:<event>] u` (tmux with `extended-keys on`,
 *   and the kitty keyboard protocol, which kitty, Ghostty, foot, WezTerm, Alacritty and iTerm2
 *   speak once asked: there Esc, Ctrl+letters and every modified Enter come this way).
 * - The cursor position report `CSI <row> ; <column> R`, the answer to `CSI 6 n`.
 *
 * readline reads at most two digits, a `;` and one digit of parameters: anything longer (kitty's
 * functional keys are numbered from 57344, a Caps Lock modifier is 65 and up) is cut into an
 * unfinished `ESC[5739` and then the rest as keys of their own, `9` and `u`, which would be typed
 * into the prompt. The decoder puts such a sequence back together first.
 */

/** What a complete sequence stood for. */
export type CsiMeaning =
  | { readonly type: 'key'; readonly key: CsiKey }
  | { readonly type: 'cursor_report'; readonly row: number; readonly column: number }
  /** A well-formed sequence for a key the editor has no use for (F13, Ctrl+Alt+x, a keypad key). */
  | { readonly type: 'ignored' };

/** The keys these sequences carry, in the editor's terms (a subset of keys.ts's EditorKey). */
export type CsiKey =
  | { readonly type: 'insert'; readonly text: string }
  | { readonly type: 'newline' | 'submit' | 'escape' | 'tab' | 'backspace' }
  | { readonly type: 'ctrl'; readonly letter: string };

/** Modifier bits, as both protocols send them (the parameter is 1 + these; Alt is 2, Super 8). */
const SHIFT = 1;
const CTRL = 4;
/** Caps Lock and Num Lock say nothing about the key meant. */
const LOCKS = 64 | 128;
/** kitty's code for the keypad's Enter: an Enter like the other. */
const KEYPAD_ENTER = 57414;
/** kitty's functional keys (keypad, media, F13 and up, lone modifiers) live in the Private Use Area. */
const isFunctionalKey = (code: number) => code >= 0xe000 && code <= 0xf8ff;

/** The key a code with these modifier bits stands for. */
function keyFor(code: number, mods: number): CsiMeaning {
  const key = (k: CsiKey): CsiMeaning => ({ type: 'key', key: k });
  if (code === 13 || code === KEYPAD_ENTER) return key({ type: mods === 0 ? 'submit' : 'newline' });
  if (code === 27) return key({ type: 'escape' });
  if (code === 9) return key({ type: 'tab' });
  if (code === 127 || code === 8) return key({ type: 'backspace' });
  const letter = code < 0x80 ? String.fromCharCode(code).toLowerCase() : '';
  if ((mods & ~SHIFT) === CTRL && /^[a-z]$/.test(letter)) return key({ type: 'ctrl', letter });
  if ((mods & ~SHIFT) !== 0 || code < 0x20 || code === 0x7f || code > 0x10ffff || isFunctionalKey(code)) return { type: 'ignored' };
  // Shift alone: the shifted text (xterm sends the shifted code already; CSI u may send the base one).
  const text = String.fromCodePoint(code);
  return key({ type: 'insert', text: mods & SHIFT ? text.toUpperCase() : text });
}

/** What `ESC [ <params> <final>` means; undefined for sequences readline handles (arrows, paste, ...). */
export function interpretCsi(params: string, final: string): CsiMeaning | undefined {
  const fields = params.split(';').map((f) => f.split(':').map((n) => (n === '' ? NaN : Number(n))));
  const first = fields[0]?.[0] ?? NaN;
  const modsOf = (field: readonly number[] | undefined) => (field === undefined ? 0 : ((field[0] ?? 1) - 1) & ~LOCKS);
  if (final === 'u' && Number.isInteger(first) && fields.length <= 3) return keyFor(first, modsOf(fields[1]));
  if (final === '~' && first === 27 && fields.length === 3) {
    const code = fields[2]?.[0] ?? NaN;
    return Number.isInteger(code) ? keyFor(code, modsOf(fields[1])) : { type: 'ignored' };
  }
  if (final === 'R' && fields.length === 2) {
    const column = fields[1]?.[0] ?? NaN;
    if (Number.isInteger(first) && Number.isInteger(column)) return { type: 'cursor_report', row: first, column };
  }
  return undefined;
}

/** A sequence readline left unfinished: its parameters so far. */
export type CsiState = { readonly params: string } | undefined;

export type CsiStep =
  /** Part of a sequence: nothing to do yet. */
  | { readonly type: 'pending'; readonly state: CsiState }
  /** A complete sequence. */
  | { readonly type: 'complete'; readonly meaning: CsiMeaning }
  /** Not (or no longer) a sequence: the keypress is itself, to be read as readline decoded it. */
  | { readonly type: 'key' };

/** Longer parameter strings are no key any terminal sends: given up on, not collected for ever. */
const MAX_PARAMS = 40;

/** One keypress (its text and raw sequence, as readline gives them) read with what came before. */
export function readCsi(state: CsiState, text: string | undefined, sequence: string | undefined): CsiStep {
  const raw = sequence ?? text ?? '';
  if (state !== undefined) {
    const t = text ?? raw;
    if (/^[0-9;:]$/.test(t) && state.params.length < MAX_PARAMS) return { type: 'pending', state: { params: state.params + t } };
    if (/^[@-~]$/.test(t)) {
      const meaning = interpretCsi(state.params, t);
      return { type: 'complete', meaning: meaning ?? { type: 'ignored' } };
    }
    // Something else: what was read of the sequence is dropped, this key counts as itself.
  }
  const unfinished = /^\x1b\[([0-9;:]*)$/.exec(raw);
  if (unfinished && unfinished[1] !== '') return { type: 'pending', state: { params: unfinished[1]! } };
  const whole = /^\x1b\[([0-9;:]+)([u~R])$/.exec(raw);
  const meaning = whole ? interpretCsi(whole[1]!, whole[2]!) : undefined;
  return meaning ? { type: 'complete', meaning } : { type: 'key' };
}
