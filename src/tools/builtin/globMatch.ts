/**
 * A small glob compiler (Node 20 has no `fs.glob`). Paths use `/` separators.
 *
 * - `*` any run of characters except `/`; `?` one character except `/`
 * - `**` as a whole segment: zero or more directories (`a/**` also matches `a` itself)
 * - `{a,b}` alternatives (may nest and contain other glob syntax)
 * - `[abc]`, `[a-z]`, `[!x]` / `[^x]` one character from a class (never `/`)
 * - `\x` the character x literally
 * Dotfiles are matched like any other name (models expect `**` to see `.github/...`).
 *
 * Compiled for RE2 (`re2js`), whose matching time is linear in the path: the model writes Glob's
 * and Grep's patterns, and `*a*a*a*a*a*a*[b]` on a long file name backtracks for hours in a
 * JavaScript RegExp (its lookahead keeps V8's linear fallback out), freezing the whole process.
 */
import { RE2JS } from 're2js';

/** A compiled glob: `test(path)` is true when the whole path matches. */
export interface GlobPattern {
  test(path: string): boolean;
}

export function globToRegExp(pattern: string, options: { ignoreCase?: boolean } = {}): GlobPattern {
  const re = RE2JS.compile(`^${compile(pattern)}$`, (options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0) | RE2JS.DOTALL);
  return { test: (path) => re.matches(path) };
}

/** Compiled patterns are reused across the thousands of paths of a walk. */
export function createGlobMatcher(pattern: string, options: { ignoreCase?: boolean } = {}): (path: string) => boolean {
  const re = globToRegExp(pattern, options);
  return (path) => re.test(path);
}

/** True when `pattern` contains glob syntax (otherwise it names one path literally). */
export function hasGlobSyntax(pattern: string): boolean {
  return /[*?[{\\]/.test(pattern);
}

/** Every character as a code point escape: always literal, in RE2 and inside a class alike. */
const literal = (c: string): string => `\\x{${c.codePointAt(0)!.toString(16)}}`;
const SLASH = 0x2f;

function compile(pattern: string): string {
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      const next = String.fromCodePoint(pattern.codePointAt(i + 1)!);
      out += literal(next);
      i += 1 + next.length;
    } else if (c === '*') {
      if (pattern[i + 1] === '*') {
        const atSegmentStart = i === 0 || pattern[i - 1] === '/';
        const end = i + 2;
        if (atSegmentStart && pattern[end] === '/') {
          out += '(?:[^/]*(?:/[^/]*)*/)?'; // `**/`: zero or more whole directories
          i = end + 1;
          continue;
        }
        if (atSegmentStart && end === pattern.length) {
          const slash = literal('/');
          if (out.endsWith(slash)) out = `${out.slice(0, -slash.length)}(?:/.*)?`; // `a/**` matches `a` and below
          else out += '.*';
          i = end;
          continue;
        }
        out += '[^/]*'; // `**` inside a segment behaves like `*`
        i = end;
        continue;
      }
      out += '[^/]*';
      i++;
    } else if (c === '?') {
      out += '[^/]';
      i++;
    } else if (c === '[') {
      const close = findClassEnd(pattern, i);
      if (close === -1) {
        out += literal('[');
        i++;
        continue;
      }
      let body = pattern.slice(i + 1, close);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      out += characterClass(body, negated);
      i = close + 1;
    } else if (c === '{') {
      const close = findBraceEnd(pattern, i);
      if (close === -1) {
        out += literal('{');
        i++;
        continue;
      }
      const alternatives = splitTopLevel(pattern.slice(i + 1, close));
      out += `(?:${alternatives.map(compile).join('|')})`;
      i = close + 1;
    } else {
      const char = String.fromCodePoint(pattern.codePointAt(i)!);
      out += literal(char);
      i += char.length;
    }
  }
  return out;
}

/**
 * A glob class as an RE2 class that never matches `/`. RE2 has no lookahead to say "and not
 * `/`", so the class is rebuilt from its ranges: a range over `/` is split around it.
 */
function characterClass(body: string, negated: boolean): string {
  const chars = [...body];
  const ranges: Array<[number, number]> = [];
  for (let j = 0; j < chars.length; j++) {
    if (chars[j] === '\\' && j + 1 < chars.length) j++;
    const lo = chars[j]!.codePointAt(0)!;
    let hi = lo;
    if (chars[j + 1] === '-' && j + 2 < chars.length) {
      j += 2;
      if (chars[j] === '\\' && j + 1 < chars.length) j++;
      hi = chars[j]!.codePointAt(0)!;
    }
    if (hi < lo) continue; // an empty range, as in a RegExp it would be an error: matches nothing
    if (lo < SLASH) ranges.push([lo, Math.min(hi, SLASH - 1)]);
    if (hi > SLASH) ranges.push([Math.max(lo, SLASH + 1), hi]);
  }
  const items = ranges.map(([lo, hi]) => (lo === hi ? literal(String.fromCodePoint(lo)) : `${literal(String.fromCodePoint(lo))}-${literal(String.fromCodePoint(hi))}`)).join('');
  if (negated) return `[^/${items}]`;
  return items === '' ? '[^\\x{0}-\\x{10ffff}]' : `[${items}]`;
}

function findClassEnd(pattern: string, open: number): number {
  let j = open + 1;
  if (pattern[j] === '!' || pattern[j] === '^') j++;
  if (pattern[j] === ']') j++; // a leading `]` is literal
  for (; j < pattern.length; j++) {
    if (pattern[j] === '\\') j++;
    else if (pattern[j] === ']') return j;
  }
  return -1;
}

function findBraceEnd(pattern: string, open: number): number {
  let depth = 0;
  for (let j = open; j < pattern.length; j++) {
    const c = pattern[j];
    if (c === '\\') j++;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return j;
  }
  return -1;
}

function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let j = 0; j < body.length; j++) {
    const c = body[j];
    if (c === '\\') j++;
    else if (c === '{') depth++;
    else if (c === '}') depth--;
    else if (c === ',' && depth === 0) {
      parts.push(body.slice(start, j));
      start = j + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}
