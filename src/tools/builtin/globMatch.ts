/**
 * A small glob → RegExp compiler (Node 20 has no `fs.glob`). Paths use `/` separators.
 *
 * - `*` any run of characters except `/`; `?` one character except `/`
 * - `**` as a whole segment: zero or more directories (`a/**` also matches `a` itself)
 * - `{a,b}` alternatives (may nest and contain other glob syntax)
 * - `[abc]`, `[a-z]`, `[!x]` / `[^x]` one character from a class (never `/`)
 * - `\x` the character x literally
 * Dotfiles are matched like any other name (models expect `**` to see `.github/...`).
 */

export function globToRegExp(pattern: string, options: { ignoreCase?: boolean } = {}): RegExp {
  return new RegExp(`^${compile(pattern)}$`, options.ignoreCase ? 'i' : '');
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

const escapeChar = (c: string): string => (/[.*+?^${}()|[\]\\/]/.test(c) ? `\\${c}` : c);

function compile(pattern: string): string {
  let out = '';
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) {
      out += escapeChar(pattern[i + 1]!);
      i += 2;
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
          if (out.endsWith('\\/')) out = `${out.slice(0, -2)}(?:/.*)?`; // `a/**` matches `a` and below
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
        out += '\\[';
        i++;
        continue;
      }
      let body = pattern.slice(i + 1, close);
      const negated = body.startsWith('!') || body.startsWith('^');
      if (negated) body = body.slice(1);
      body = body.replace(/\\/g, '\\\\').replace(/]/g, '\\]');
      out += negated ? `(?!/)[^${body}]` : `(?!/)[${body}]`;
      i = close + 1;
    } else if (c === '{') {
      const close = findBraceEnd(pattern, i);
      if (close === -1) {
        out += '\\{';
        i++;
        continue;
      }
      const alternatives = splitTopLevel(pattern.slice(i + 1, close));
      out += `(?:${alternatives.map(compile).join('|')})`;
      i = close + 1;
    } else {
      out += escapeChar(c);
      i++;
    }
  }
  return out;
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
