/** The prompt's editor as a pure reducer, and the key decoding in front of it. */
import { describe, expect, test } from 'vitest';
import { decodeKey, toEditorKey, type EditorKey, type KeyDecodeState, type RawKey } from '../../../src/cli/interactive/keys.js';
import { emptyEditor, reduceEditor, type EditorState, type EditorStep } from '../../../src/cli/interactive/lineEditor.js';

const type = (text: string): EditorKey[] => [...text].map((c) => ({ type: 'insert', text: c }));
function run(keys: EditorKey[], start: EditorState = emptyEditor(), complete?: (t: string) => string[]): { state: EditorState; effects: EditorStep['effect'][] } {
  let state = start;
  const effects: EditorStep['effect'][] = [];
  for (const key of keys) {
    const step = reduceEditor(state, key, complete);
    state = step.state;
    if (step.effect) effects.push(step.effect);
  }
  return { state, effects };
}

describe('reduceEditor', () => {
  test('a bracketed paste is one text: its CRs become newlines, its Enter and Esc are text, Enter after it submits it whole', () => {
    const paste: EditorKey[] = [
      { type: 'paste_start' },
      ...type('L1'),
      { type: 'submit' },
      ...type('L2'),
      { type: 'submit' },
      { type: 'newline' }, // CR LF: one newline
      ...type('L3'),
      { type: 'escape' },
      { type: 'paste_end' },
    ];
    const { state, effects } = run([...paste, { type: 'submit' }]);
    expect(effects).toEqual([{ type: 'submit', text: 'L1\nL2\nL3' }]);
    expect(state.text).toBe('');
    expect(state.history).toEqual(['L1\nL2\nL3']);
  });

  test('\\ then Enter, and Shift/Meta+Enter, insert a newline instead of submitting', () => {
    const { state, effects } = run([...type('a\\'), { type: 'submit' }, ...type('b'), { type: 'newline' }, ...type('c')]);
    expect(effects).toEqual([]);
    expect(state.text).toBe('a\nb\nc');
  });

  test('Up/Down move between lines first, then through the history, and restore the draft', () => {
    const start = emptyEditor(['old one', 'old two']);
    const { state } = run([...type('x\ny'), { type: 'up' }], start);
    expect(state.text).toBe('x\ny');
    expect(state.cursor).toBe(1);
    const browsed = run([{ type: 'up' }], state).state;
    expect(browsed.text).toBe('old two');
    expect(run([{ type: 'up' }], browsed).state.text).toBe('old one');
    expect(run([{ type: 'down' }], browsed).state.text).toBe('x\ny');
  });

  test('Tab completes a unique command with a space, or up to the common prefix', () => {
    const complete = (t: string) => ['/clear', '/compact', '/cost'].filter((c) => c.startsWith(t));
    expect(run([...type('/cl'), { type: 'tab' }], emptyEditor(), complete).state.text).toBe('/clear ');
    expect(run([...type('/c'), { type: 'tab' }], emptyEditor(), complete).state.text).toBe('/c');
    expect(run([...type('/co'), { type: 'tab' }], emptyEditor(), complete).state.text).toBe('/co');
    expect(run([...type('/com'), { type: 'tab' }], emptyEditor(), complete).state.text).toBe('/compact ');
  });

  test('Ctrl-C clears typed text, else is an interrupt; Ctrl-D on an empty prompt exits; blank Enter sends nothing', () => {
    expect(run([...type('abc'), { type: 'interrupt' }]).state.text).toBe('');
    expect(run([...type('abc'), { type: 'interrupt' }]).effects).toEqual([]);
    expect(run([{ type: 'interrupt' }]).effects).toEqual([{ type: 'interrupt' }]);
    expect(run([{ type: 'eof' }]).effects).toEqual([{ type: 'exit' }]);
    expect(run([...type('  '), { type: 'submit' }]).effects).toEqual([]);
    expect(run([{ type: 'escape' }]).effects).toEqual([{ type: 'escape' }]);
  });

  test('editing keys: backspace, delete, home/end within a line, kill before/after/word', () => {
    const s = run([...type('one two'), { type: 'kill_word' }]).state;
    expect(s.text).toBe('one ');
    const t = run([...type('ab\ncd'), { type: 'home' }, { type: 'kill_after' }]).state;
    expect(t.text).toBe('ab\n');
    const u = run([...type('abc'), { type: 'left' }, { type: 'backspace' }, { type: 'delete' }]).state;
    expect(u.text).toBe('a');
  });
});

describe('toEditorKey', () => {
  test('Enter submits; Meta+Enter and Ctrl-J are newlines (CSI-u Shift+Enter: decodeKey); paste markers; escape', () => {
    expect(toEditorKey('\r', { name: 'return', sequence: '\r' })).toEqual({ type: 'submit' });
    expect(toEditorKey(undefined, { name: 'return', meta: true, sequence: '\x1b\r' })).toEqual({ type: 'newline' });
    expect(decodeKey(undefined, undefined, { name: 'undefined', code: '[13;2u', sequence: '\x1b[13;2u' }).key).toEqual({ type: 'newline' });
    expect(toEditorKey('\n', { name: 'enter', sequence: '\n' })).toEqual({ type: 'newline' });
    expect(toEditorKey(undefined, { name: 'paste-start', code: '[200~' })).toEqual({ type: 'paste_start' });
    expect(toEditorKey(undefined, { name: 'escape', meta: true, sequence: '\x1b' })).toEqual({ type: 'escape' });
    expect(toEditorKey('\x03', { name: 'c', ctrl: true })).toEqual({ type: 'interrupt' });
  });

  test('an unknown escape sequence never becomes text', () => {
    expect(toEditorKey(undefined, { name: 'undefined', code: '[27;2;', sequence: '\x1b[27;2;' })).toBeUndefined();
    expect(toEditorKey('\x07', { sequence: '\x07' })).toBeUndefined();
    expect(toEditorKey('é', { sequence: 'é' })).toEqual({ type: 'insert', text: 'é' });
  });
});

describe('graphemes and columns', () => {
  const at = (text: string, cursor: number): EditorState => ({ ...emptyEditor(), text, cursor });
  const TEXT = 'a😀e\u0301🇫🇷b';
  test('Left, Right, Backspace and Delete go by grapheme: an emoji, a combined accent, a flag', () => {
    const end = at(TEXT, TEXT.length);
    expect(TEXT.slice(run([{ type: 'left' }], end).state.cursor)).toBe('b');
    expect(TEXT.slice(run([{ type: 'left' }, { type: 'left' }], end).state.cursor)).toBe('🇫🇷b');
    expect(run([{ type: 'left' }, { type: 'left' }, { type: 'backspace' }], end).state.text).toBe('a😀🇫🇷b');
    expect(run([{ type: 'left' }, { type: 'left' }, { type: 'backspace' }, { type: 'backspace' }], end).state.text).toBe('a🇫🇷b');
    const start = at(TEXT, 0);
    expect(run([{ type: 'right' }, { type: 'delete' }], start).state.text).toBe('ae\u0301🇫🇷b');
    expect(TEXT.slice(run([{ type: 'right' }, { type: 'right' }], start).state.cursor)).toBe('e\u0301🇫🇷b');
    expect(run([{ type: 'right' }, { type: 'eof' }], start).state.text).toBe('ae\u0301🇫🇷b');
    // Typed where the cursor is, never inside a surrogate pair.
    const typed = run([{ type: 'left' }, { type: 'left' }, { type: 'left' }, { type: 'insert', text: 'Z' }], end).state.text;
    expect(typed).toBe('a😀Ze\u0301🇫🇷b');
    expect(typed).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });

  test('Up and Down keep the column in terminal columns (a CJK character is two)', () => {
    const text = '中文字\nabcdef';
    expect(run([{ type: 'up' }], at(text, text.length)).state.cursor).toBe(3);
    expect(run([{ type: 'up' }], at(text, 4 + 3)).state.cursor).toBe(1);
    expect(run([{ type: 'down' }], at(text, 2)).state.cursor).toBe(4 + 4);
  });
});

describe('decodeKey', () => {
  const feed = (keys: Array<[string | undefined, RawKey]>) => {
    let state: KeyDecodeState;
    const out: Array<EditorKey | undefined> = [];
    for (const [str, key] of keys) {
      const step = decodeKey(state, str, key);
      state = step.state;
      if (step.key !== undefined) out.push(step.key);
    }
    return { out, state };
  };
  const digit = (d: string): [string, RawKey] => [d, { sequence: d, name: d }];
  test("xterm's modifyOtherKeys Shift+Enter (readline splits it into ESC[27;2; 1 3 ~) is one newline", () => {
    const { out, state } = feed([[undefined, { name: 'undefined', code: '[27;2;', sequence: '\x1b[27;2;' }], digit('1'), digit('3'), ['~', { sequence: '~' }], ['a', { sequence: 'a', name: 'a' }]]);
    expect(out).toEqual([{ type: 'newline' }, { type: 'insert', text: 'a' }]);
    expect(state).toBeUndefined();
  });

  test('CSI-u Enter with any modifier is a newline; an unfinished form drops only itself', () => {
    expect(feed([[undefined, { name: 'undefined', code: '[13;5u', sequence: '\x1b[13;5u' }]]).out).toEqual([{ type: 'newline' }]);
    // A key that can neither go on nor end a sequence (a final byte is @ to ~) counts as itself.
    const broken = feed([[undefined, { name: 'undefined', code: '[27;5;', sequence: '\x1b[27;5;' }], digit('9'), ['é', { sequence: 'é' }]]);
    expect(broken.out).toEqual([{ type: 'insert', text: 'é' }]);
    // Ctrl+digit reported by xterm: not text, not a command.
    expect(feed([[undefined, { name: 'undefined', code: '[27;5;', sequence: '\x1b[27;5;' }], digit('4'), digit('9'), ['~', { sequence: '~' }]]).out).toEqual([]);
  });
});
