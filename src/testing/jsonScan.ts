/**
 * Byte-level helpers for finding where JSON values start and end in a UTF-8 body without parsing
 * them (the scripted server's incremental body parser uses them to cut a body into pieces that
 * each go to `JSON.parse`).
 *
 * They only delimit: a piece they delimit wrongly (mismatched brackets, a bad literal) fails its
 * own `JSON.parse`, and the caller then parses the whole body the plain way. Every byte they
 * treat as structure is ASCII, so a cut never falls inside a multi-byte UTF-8 sequence.
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;

/** JSON's whitespace: space, tab, line feed, carriage return (nothing else, as in `JSON.parse`). */
export function isJsonWhitespace(byte: number): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** The first index at or after `i` that is not JSON whitespace (`bytes.length` if none). */
export function skipWhitespace(bytes: Uint8Array, i: number): number {
  while (i < bytes.length && isJsonWhitespace(bytes[i]!)) i++;
  return i;
}

/** The index just after the closing quote of the string literal opening at `i`, or -1. */
export function stringEnd(bytes: Buffer, i: number): number {
  let j = i + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, j);
    if (quote < 0) return -1;
    // Escaped when an odd number of backslashes precedes it.
    let slashes = 0;
    while (quote - 1 - slashes > i && bytes[quote - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    j = quote + 1;
  }
}

/**
 * The index just after the JSON value that starts at `i` (a non-whitespace byte), or -1 when no
 * end is found. Brackets are counted without checking their kinds; scalars end at the first
 * delimiter. The piece is exact for valid JSON, and invalid JSON fails its own parse.
 */
export function valueEnd(bytes: Buffer, i: number): number {
  const first = bytes[i];
  if (first === QUOTE) return stringEnd(bytes, i);
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0;
    for (let j = i; j < bytes.length; j++) {
      const c = bytes[j]!;
      if (c === QUOTE) {
        const end = stringEnd(bytes, j);
        if (end < 0) return -1;
        j = end - 1;
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        depth++;
      } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
        depth--;
        if (depth === 0) return j + 1;
      }
    }
    return -1;
  }
  let j = i;
  while (j < bytes.length) {
    const c = bytes[j]!;
    if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isJsonWhitespace(c)) break;
    j++;
  }
  return j > i ? j : -1;
}

/** Compared a block at a time: one native compare per block, a byte loop only inside the block that differs. */
const COMPARE_BLOCK = 16 * 1024;

/** The first index in [from, limit) where `a` and `b` differ, or `limit` (both must be at least `limit` long). */
export function firstMismatch(a: Buffer, b: Buffer, from: number, limit: number): number {
  for (let i = from; i < limit; i += COMPARE_BLOCK) {
    const end = Math.min(i + COMPARE_BLOCK, limit);
    if (a.compare(b, i, end, i, end) !== 0) {
      for (let j = i; j < end; j++) if (a[j] !== b[j]) return j;
    }
  }
  return limit;
}
