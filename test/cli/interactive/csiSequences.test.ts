/**
 * Modified keys and cursor reports as a terminal sends them, through Node's real readline
 * (`emitKeypressEvents` on a stream) and then our decoder: what reaches the editor. readline cuts
 * long sequences into pieces (a kitty keypad key, a Caps Lock modifier); none of the pieces may
 * be typed into the prompt.
 */
import { emitKeypressEvents } from 'node:readline';
import { PassThrough } from 'node:stream';
import { describe, expect, test } from 'vitest';
import { interpretCsi, readCsi } from '../../../src/cli/interactive/csiSequences.js';
import { decodeKey, type EditorKey, type KeyDecodeState, type KeyDecodeStep, type RawKey } from '../../../src/cli/interactive/keys.js';

/** The bytes through readline, then every keypress through decodeKey: the editor keys and reports. */
async function decodeBytes(bytes: string): Promise<{ keys: EditorKey[]; reports: Array<NonNullable<KeyDecodeStep['cursorReport']>> }> {
  const input = new PassThrough();
  emitKeypressEvents(input);
  const keys: EditorKey[] = [];
  const reports: Array<NonNullable<KeyDecodeStep['cursorReport']>> = [];
  let state: KeyDecodeState;
  input.on('keypress', (str: string | undefined, key: RawKey | undefined) => {
    const step = decodeKey(state, str, key);
    state = step.state;
    if (step.key) keys.push(step.key);
    if (step.cursorReport) reports.push(step.cursorReport);
  });
  // A trailing plain key: readline holds a lone ESC until more comes; this also ends any
  // sequence still being put together.
  await new Promise<void>((resolve) => input.write(`${bytes}.`, () => resolve()));
  await new Promise((resolve) => setImmediate(resolve));
  expect(keys.at(-1)).toEqual({ type: 'insert', text: '.' });
  return { keys: keys.slice(0, -1), reports };
}

describe('keys in the kitty protocol and CSI u, through readline', () => {
  test.each([
    ['Shift+Enter', '\x1b[13;2u', [{ type: 'newline' }]],
    ['Ctrl+Enter', '\x1b[13;5u', [{ type: 'newline' }]],
    ['Alt+Enter', '\x1b[13;3u', [{ type: 'newline' }]],
    ['Esc', '\x1b[27u', [{ type: 'escape' }]],
    ['Ctrl+C', '\x1b[99;5u', [{ type: 'interrupt' }]],
    ['Ctrl+D', '\x1b[100;5u', [{ type: 'eof' }]],
    ['Ctrl+L', '\x1b[108;5u', [{ type: 'clear_screen' }]],
    ['Ctrl+J', '\x1b[106;5u', [{ type: 'newline' }]],
    ['Ctrl+Shift+A (kitty: base code, shift bit)', '\x1b[97;6u', [{ type: 'home' }]],
    // Caps Lock adds 64 to the modifier: 69 is two digits after the `;`, readline cuts it.
    ['Ctrl+C with Caps Lock on', '\x1b[99;69u', [{ type: 'interrupt' }]],
    ['Esc with Num Lock on', '\x1b[27;129u', [{ type: 'escape' }]],
    // kitty's keypad and F13+ keys are numbered from 57344: cut by readline after four digits.
    ['keypad 0 (57399)', '\x1b[57399u', []],
    ['keypad Enter (57414)', '\x1b[57414u', [{ type: 'submit' }]],
    ['F13 (57376) with Shift', '\x1b[57376;2u', []],
    ['Alt+x (left to the terminal, as readline leaves Meta+x)', '\x1b[120;3u', []],
    ['Shift+a as CSI u', '\x1b[97;2u', [{ type: 'insert', text: 'A' }]],
    ['a key with alternates and an event type', '\x1b[99:67;5:1u', [{ type: 'interrupt' }]],
    ["xterm's modifyOtherKeys Shift+Enter", '\x1b[27;2;13~', [{ type: 'newline' }]],
    ["xterm's modifyOtherKeys Ctrl+digit (nothing)", '\x1b[27;5;49~', []],
  ] as const)('%s', async (_name, bytes, expected) => {
    expect((await decodeBytes(bytes)).keys).toEqual(expected);
  });

  test('what readline already decodes is left to it: arrows, Delete, a bracketed paste', async () => {
    const { keys } = await decodeBytes('\x1b[A\x1b[3~\x1b[200~hi\x1b[201~');
    expect(keys).toEqual([{ type: 'up' }, { type: 'delete' }, { type: 'paste_start' }, { type: 'insert', text: 'h' }, { type: 'insert', text: 'i' }, { type: 'paste_end' }]);
  });

  test('typed text around the sequences arrives whole and in order', async () => {
    const { keys } = await decodeBytes('ab\x1b[13;2ucd\x1b[57399uef');
    expect(keys.map((k) => (k.type === 'insert' ? k.text : `<${k.type}>`)).join('')).toBe('ab<newline>cdef');
  });

  test('an abandoned piece drops only itself: a key that cannot end a sequence counts', async () => {
    // Final bytes are @ to ~ (ECMA-48): `x` would end the sequence, `é` cannot.
    const { keys } = await decodeBytes('\x1b[5739é');
    expect(keys).toEqual([{ type: 'insert', text: 'é' }]);
  });
});

describe('cursor position reports', () => {
  test.each([
    ['\x1b[5;3R', { row: 5, column: 3 }],
    ['\x1b[12;2R', { row: 12, column: 2 }],
    ['\x1b[120;100R', { row: 120, column: 100 }],
  ])('%j is a report, typed into nothing', async (bytes, report) => {
    const decoded = await decodeBytes(bytes);
    expect(decoded.reports).toEqual([report]);
    expect(decoded.keys).toEqual([]);
  });
});

describe('interpretCsi and readCsi', () => {
  test('sequences that are not ours are left alone', () => {
    expect(interpretCsi('200', '~')).toBeUndefined();
    expect(interpretCsi('1;2;3', 'R')).toBeUndefined();
    expect(readCsi(undefined, 'a', 'a')).toEqual({ type: 'key' });
  });

  test('a runaway parameter string is given up, not collected for ever', () => {
    let state = readCsi(undefined, undefined, '\x1b[1234');
    for (let i = 0; i < 100 && state.type === 'pending'; i++) state = readCsi(state.state, '9', '9');
    expect(state.type).toBe('key');
  });
});
