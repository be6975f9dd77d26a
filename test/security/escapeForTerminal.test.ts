/**
 * What an approval prompt shows of a command or path: every character that could act on the
 * terminal or hide from the reader is written out, the rest is left alone, and nothing is cut.
 */
import { describe, expect, test } from 'vitest';
import { escapeForTerminal, formatCommandForApproval } from '../../src/util/escapeForTerminal.js';

describe('escapeForTerminal', () => {
  test.each([
    ['colors and cursor moves (CSI)', 'echo \x1b[31mred\x1b[0m\x1b[2A', 'echo \\e[31mred\\e[0m\\e[2A', 3],
    ['a window title / clipboard write (OSC … BEL)', '\x1b]52;c;cm0gLXJm\x07ls', '\\e]52;c;cm0gLXJm\\x07ls', 2],
    ['a carriage return that overprints the line', 'rm -rf ~ #\rls -la', 'rm -rf ~ #\\rls -la', 1],
    ['backspaces that erase what was shown', 'rm -rf x\b\b\b\b\b\b\b\bls', 'rm -rf x' + '\\x08'.repeat(8) + 'ls', 8],
    ['the C1 CSI (one byte ESC [ on some terminals)', 'a\u009b31mb', 'a\\x9b31mb', 1],
    ['NUL and DEL', 'a\0b\x7f', 'a\\x00b\\x7f', 2],
    ['a tab', 'a\tb', 'a\\tb', 1],
    ['a right-to-left override (Trojan Source)', 'ls # \u202eexe.cod', 'ls # \\u202eexe.cod', 1],
    ['bidi isolates and marks', 'a\u2066b\u2069c\u200fd', 'a\\u2066b\\u2069c\\u200fd', 3],
    ['zero-width characters and a BOM', 'r\u200bm -\u2060rf\ufeff', 'r\\u200bm -\\u2060rf\\ufeff', 3],
    ['line and paragraph separators', 'a\u2028b\u2029c', 'a\\u2028b\\u2029c', 2],
    ['invisible tag characters', 'a\u{e0041}b', 'a\\u{e0041}b', 1],
    ['a lone surrogate', 'a\ud800b', 'a\\ud800b', 1],
  ])('%s', (_what, input, shown, count) => {
    expect(escapeForTerminal(input)).toEqual({ text: shown, escaped: count });
  });

  test('plain text, non-ASCII letters, emoji and newlines are shown as they are', () => {
    const text = 'grep -rn "café 中文 😀" src/\nwc -l';
    expect(escapeForTerminal(text)).toEqual({ text, escaped: 0 });
  });

  test('newlines can be written out too (for one-line fields such as a path)', () => {
    expect(escapeForTerminal('a\nb', { newlines: 'escape' })).toEqual({ text: 'a\\nb', escaped: 1 });
  });

  test('the result never holds a control or invisible character', () => {
    let all = '';
    for (let c = 0; c < 0x3000; c++) all += String.fromCharCode(c);
    const { text } = escapeForTerminal(all, { newlines: 'escape' });
    expect(text).not.toMatch(/[\x00-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u206f]/);
  });
});

describe('formatCommandForApproval', () => {
  test('a long command is shown whole, wrapped at the width, with the directory', () => {
    const command = `find . -name '*.ts' ${'-o -name x '.repeat(30)}-exec rm {} +`;
    const shown = formatCommandForApproval(command, { cwd: '/work/project', width: 40 });
    const lines = shown.split('\n');
    expect(lines.at(-1)).toBe('  in /work/project');
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(40);
    expect(lines.slice(0, -1).map((l) => l.slice(2)).join('')).toBe(command);
  });

  test('escapes are shown and counted; a hostile cwd cannot break the prompt either', () => {
    const shown = formatCommandForApproval('ls\x1b[8m; rm -rf ~', { cwd: '/tmp/x\ny\x1b[2J' });
    expect(shown).toBe('  ls\\e[8m; rm -rf ~\n  (1 control or invisible character shown escaped)\n  in /tmp/x\\ny\\e[2J');
  });
});
