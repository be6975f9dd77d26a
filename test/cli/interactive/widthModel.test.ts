/**
 * The two ways terminals measure emoji sequences (src/util/terminalWidth.ts), against what tmux
 * 3.3a drew, measured by printing each and reading tmux's cursor column (session 5): the
 * 'codepoint' model must give the same columns, the 'grapheme' model is string-width's.
 */
import { afterEach, describe, expect, test } from 'vitest';
import { columnsOf, setWidthModel, widthModel, wrapToColumns } from '../../../src/util/terminalWidth.js';

afterEach(() => setWidthModel('grapheme'));

/** [text, columns tmux 3.3a drew it in, string-width's columns]. */
const MEASURED: ReadonlyArray<readonly [string, number, number]> = [
  ['❤️', 1, 2],
  ['☀️', 1, 2],
  ['™️', 1, 2],
  ['1️⃣', 1, 2],
  ['#️⃣', 1, 2],
  ['🏳️‍🌈', 1, 2],
  ['❤️‍🔥', 1, 2],
  ['🕵️‍♀️', 1, 2],
  ['✌🏽', 3, 2],
  ['🧑‍💻', 2, 2],
  ['👨‍👩‍👧', 2, 2],
  ['🫠', 2, 2],
  ['😀', 2, 2],
  ['🇯🇵', 2, 2],
  ['❤', 1, 1],
  ['e\u0301', 1, 1],
  ['中文', 4, 4],
  ['a❤️b', 3, 4],
];

describe('width models', () => {
  test.each(MEASURED)("%s: 'codepoint' gives tmux's %i columns, 'grapheme' string-width's %i", (text, tmux, sw) => {
    setWidthModel('codepoint');
    expect(columnsOf(text)).toBe(tmux);
    setWidthModel('grapheme');
    expect(columnsOf(text)).toBe(sw);
  });

  test('escape sequences count for nothing in both', () => {
    for (const model of ['grapheme', 'codepoint'] as const) {
      setWidthModel(model);
      expect(columnsOf('\u001b[1m❤\u001b[22m中')).toBe(3);
    }
  });

  test('wrapping follows the model: ❤️ fits one column in codepoint terminals', () => {
    setWidthModel('codepoint');
    expect(wrapToColumns('❤️❤️❤️', 2)).toEqual(['❤️❤️', '❤️']);
    setWidthModel('grapheme');
    expect(wrapToColumns('❤️❤️❤️', 2)).toEqual(['❤️', '❤️', '❤️']);
    expect(widthModel()).toBe('grapheme');
  });
});
