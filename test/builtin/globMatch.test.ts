import { describe, expect, test } from 'vitest';
import { globToRegExp } from '../../src/tools/builtin/globMatch.js';

const cases: Array<[pattern: string, path: string, matches: boolean]> = [
  ['*.ts', 'a.ts', true],
  ['*.ts', 'src/a.ts', false],
  ['*.ts', '.hidden.ts', true],
  ['**/*.ts', 'a.ts', true],
  ['**/*.ts', 'src/deep/a.ts', true],
  ['**/*.ts', 'src/a.tsx', false],
  ['src/**', 'src', true],
  ['src/**', 'src/a/b.js', true],
  ['src/**', 'srcx/a', false],
  ['src/**/*.test.ts', 'src/x.test.ts', true],
  ['src/**/*.test.ts', 'src/a/b/x.test.ts', true],
  ['src/**/*.test.ts', 'lib/x.test.ts', false],
  ['a/**/b', 'a/b', true],
  ['a/**/b', 'a/x/y/b', true],
  ['a/**/b', 'a/xb', false],
  ['?.md', 'a.md', true],
  ['?.md', 'ab.md', false],
  ['?', '/', false],
  ['*.{ts,js}', 'x.js', true],
  ['*.{ts,js}', 'x.jsx', false],
  ['{src,test}/**/*.{ts,tsx}', 'test/a/b.tsx', true],
  ['{a,{b,c}}.txt', 'c.txt', true],
  ['[abc].txt', 'b.txt', true],
  ['[abc].txt', 'd.txt', false],
  ['[a-c]x', 'bx', true],
  ['[!a]x', 'ax', false],
  ['[!a]x', 'bx', true],
  ['[^a]x', 'bx', true],
  ['[!a]', '/', false],
  ['a\\*b', 'a*b', true],
  ['a\\*b', 'axb', false],
  ['a.b', 'axb', false],
  ['(x)+', '(x)+', true],
  ['a[', 'a[', true],
  ['{a', '{a', true],
];

describe('globToRegExp', () => {
  test.each(cases)('%s against %s → %s', (pattern, path, expected) => {
    expect(globToRegExp(pattern).test(path)).toBe(expected);
  });

  test('ignoreCase', () => {
    expect(globToRegExp('*.TS', { ignoreCase: true }).test('a.ts')).toBe(true);
    expect(globToRegExp('*.TS').test('a.ts')).toBe(false);
  });
});
