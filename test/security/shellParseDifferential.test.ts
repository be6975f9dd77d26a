/**
 * The parser's word splitting against bash itself: for generated command lines (quotes,
 * backslashes, line continuations, `$IFS`, braces, globs, tildes), every word the parser calls
 * fixed must be exactly the word bash passes, and when bash would expand something the parser
 * must say so. Bash runs each batch once (`printf "%s\0"` of the words) in an empty directory.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, test } from 'vitest';
import { isStaticWord, parseShell } from '../../src/tools/builtin/shellParse.js';
import { fcParams } from '../reliability/fcConfig.js';

const emptyDir = mkdtempSync(join(tmpdir(), 'rxagent-differential-'));
afterAll(() => rmSync(emptyDir, { recursive: true, force: true }));

/**
 * Bash's words for each line: one outer bash runs `bash -c "printf '%s\0' _ <line>"` for each
 * line in turn (`-c`, as the Bash tool runs commands: `eval` differs on a trailing backslash),
 * marking the end of each line's words, or a failure for a line bash refuses to parse.
 */
function bashWords(lines: readonly string[]): Array<string[] | 'error'> {
  const script = `i=0; for l; do bash --norc --noprofile -c "printf '%s\\0' _ $l" 2>/dev/null || printf '\\002'; printf '\\001M%dM\\001' "$i"; i=$((i+1)); done`;
  const out = execFileSync('bash', ['--norc', '--noprofile', '-c', script, '_', ...lines], {
    cwd: emptyDir,
    encoding: 'utf8',
    env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent-home' },
  });
  const result: Array<string[] | 'error'> = [];
  let rest = out;
  for (let i = 0; i < lines.length; i++) {
    const marker = `\u0001M${i}M\u0001`;
    const at = rest.indexOf(marker);
    const chunk = rest.slice(0, at);
    rest = rest.slice(at + marker.length);
    if (at === -1 || chunk.endsWith('\u0002')) {
      result.push('error');
      continue;
    }
    const words = chunk.split('\0');
    words.pop(); // after the last \0
    words.shift(); // the `_` that keeps printf from printing one empty word for no arguments
    result.push(words);
  }
  return result;
}

const piece = fc.oneof(
  fc.constantFrom('a', 'b', '-x', '--opt=', 'x y', ' ', '  ', '\t', '\\', '\\\n', '\n', '"', "'", '$', '$IFS', '${IFS}', '{a,b}', '{1..2}', '*', '?', '[ab]', '~', '~/x', 'a=~', ':~', '\\ ', '\\"', "\\'", '#', '=', '-', '.'),
  fc.string({ unit: fc.constantFrom('a', 'b', '\\', '"', "'", ' ', '\n', '-', 'e'), maxLength: 6 }),
);
/** A command line of pieces, wrapped in quotes now and then. */
const line = fc
  .array(
    fc.tuple(piece, fc.constantFrom('none', 'single', 'double')).map(([text, quote]) =>
      quote === 'single' ? `'${text.replaceAll("'", '')}'` : quote === 'double' ? `"${text}"` : text,
    ),
    { minLength: 1, maxLength: 6 },
  )
  .map((parts) => parts.join(''));

describe('parser word splitting agrees with bash', () => {
  test('on generated command lines', () => {
    fc.assert(
      fc.property(fc.array(line, { minLength: 1, maxLength: 10 }), (lines) => {
        // Only lines bash runs as one simple printf command, with no comment or operator.
        const candidates = lines.filter((l) => {
          const parsed = parseShell(`printf '%s\\0' _ ${l}`);
          return parsed.ok && parsed.script.commands.length === 1 && parsed.script.constructs.length === 0 && !/[#;&|<>()`]/.test(l);
        });
        if (candidates.length === 0) return;
        const actual = bashWords(candidates);
        candidates.forEach((l, i) => {
          const parsed = parseShell(`printf '%s\\0' _ ${l}`);
          if (!parsed.ok) throw new Error('unreachable');
          const words = parsed.script.commands[0]!.words.slice(3);
          const fromBash = actual[i]!;
          if (fromBash === 'error') return; // bash refused the whole batch; the parser accepting it is conservative enough
          if (words.every(isStaticWord)) {
            expect({ line: l, words: words.map((w) => w.value) }).toEqual({ line: l, words: fromBash });
          } else {
            // Something expands: the parser must not claim a fixed value it would get wrong.
            for (const w of words) if (isStaticWord(w)) expect(fromBash, l).toContain(w.value);
          }
        });
      }),
      fcParams(150),
    );
  });

  test.each([
    ['"-ex\\\nec"', ['-exec']],
    ['a\\\nb', ['ab']],
    ['"a\\b" \'c\\d\'', ['a\\b', 'c\\d']],
    ['\\;', [';']],
    ['a\\\\', ['a\\']],
    ['"x\\"y" "\\$z"', ['x"y', '$z']],
  ])('%j', (text, expected) => {
    const parsed = parseShell(`printf '%s\\0' _ ${text}`);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.script.commands[0]!.words.slice(3).map((w) => w.value)).toEqual(expected);
    expect(bashWords([text])[0]).toEqual(expected);
  });

  test.each(['$IFS', 'rm${IFS}x', '{a,b}', '*', '~', 'a=~/x', "$'\\x2d'", '~\\\n/x', '{a,\\\nb}', '\\\n*'])('%s is marked as expanding', (text) => {
    const parsed = parseShell(`echo ${text}`);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(isStaticWord(parsed.script.commands[0]!.words[1]!)).toBe(false);
  });

  /*
   * Where mvdan-sh and bash split a line continuation differently. Each line is run by bash too,
   * so the test shows the disagreement is real: bash expands, or runs a second command.
   */
  test.each([
    ['$\\\nHOME', 'a line continuation follows a $', '/nonexistent-home\0'],
    ['"$\\\n(echo hi)"', 'a line continuation follows a $', 'hi\0'],
    ['a$\\\n{HOME}', 'a line continuation follows a $', 'a/nonexistent-home\0'],
    ['$\\\n#', 'a line continuation follows a $', '0\0'], // parser: `$` then a comment
    ['$\\\n\\\n{HOME}', 'a line continuation follows a $', '/nonexistent-home\0'],
    ['x # c \\\necho SECOND', 'a comment ends in a backslash', 'x\0SECOND\n'], // parser: one command
    ['x #\\\necho SECOND', 'a comment ends in a backslash', 'x\0SECOND\n'],
  ])('%j is refused (bash reads it otherwise)', (text, reason, bashPrints) => {
    const parsed = parseShell(`printf '%s\\0' _ ${text}`);
    expect(parsed.ok ? 'parsed' : parsed.reason).toContain(reason);
    const out = execFileSync('bash', ['--norc', '--noprofile', '-c', `printf '%s\\0' _ ${text}`], {
      cwd: emptyDir,
      encoding: 'utf8',
      env: { PATH: process.env['PATH'] ?? '', HOME: '/nonexistent-home' },
    });
    expect(out).toBe(`_\0${bashPrints}`);
  });

  test.each([
    ['cat <<E\n$\\\n(id)\nE', false, 'a line continuation follows a $'],
    ['cat <<E\n\\$HOME\nE', false, undefined],
    ['cat <<E\n`id`\nE', false, undefined],
    ['cat <<E\nplain text\nE', true, undefined],
    ["cat <<'E'\n$HOME `id` \\\nE", true, undefined],
    ['cat <<"E"\n$HOME\nE', true, undefined],
    ['cat <<\\E\n$HOME\nE', true, undefined],
  ])('here-document %j: static body %s', (text, staticBody, refusal) => {
    const parsed = parseShell(text);
    if (refusal !== undefined) {
      expect(parsed.ok ? 'parsed' : parsed.reason).toContain(refusal);
      return;
    }
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.script.commands[0]!.redirects[0]!.staticBody).toBe(staticBody);
  });

  test('a comment with an escaped backslash before the newline ends there, as in bash', () => {
    const parsed = parseShell('ls # c \\\\\nrm x');
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.script.commands.map((c) => c.words[0]!.value)).toEqual(['ls', 'rm']);
  });
});
