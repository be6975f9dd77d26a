/**
 * The fixed layouts of the API's hot event, recognised without `JSON.parse`.
 *
 * Most of a response is `content_block_delta` events that the API always writes the same way:
 *
 *   {"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"…"}}
 *
 * (likewise `input_json_delta`/`partial_json`, `thinking_delta`/`thinking`,
 * `signature_delta`/`signature`). Parsing such an event with `JSON.parse` builds two objects
 * from a generic grammar; here the fixed parts are compared as text, the index read as digits and
 * the one string literal scanned once. The scan checks everything JSON requires of a string (no
 * raw control characters, no bare quote, only valid escapes), so what it accepts is exactly what
 * `JSON.parse` would accept, with the same value: a literal without escapes is its own value (a
 * slice), one with escapes is unescaped by `JSON.parse` of just that literal.
 *
 * Anything else (other whitespace or key order, extra fields, a number that is not a plain
 * integer, other delta types, malformed text) is not matched, and the caller falls back to the
 * full parse and its validation; that path also produces every error message.
 */

/** A matched delta event: the same object `JSON.parse` gives for the same text. */
export type LayoutDeltaEvent =
  | { readonly type: 'content_block_delta'; readonly index: number; readonly delta: { readonly type: 'text_delta'; readonly text: string } }
  | { readonly type: 'content_block_delta'; readonly index: number; readonly delta: { readonly type: 'input_json_delta'; readonly partial_json: string } }
  | { readonly type: 'content_block_delta'; readonly index: number; readonly delta: { readonly type: 'thinking_delta'; readonly thinking: string } }
  | { readonly type: 'content_block_delta'; readonly index: number; readonly delta: { readonly type: 'signature_delta'; readonly signature: string } };

const EVENT_PREFIX = '{"type":"content_block_delta","index":';
const DELTA_KEY = ',"delta":';
const TEXT_PREFIX = '{"type":"text_delta","text":"';
const INPUT_PREFIX = '{"type":"input_json_delta","partial_json":"';
const THINKING_PREFIX = '{"type":"thinking_delta","thinking":"';
const SIGNATURE_PREFIX = '{"type":"signature_delta","signature":"';
/** The literal's closing quote, then the delta's and the event's braces, then nothing. */
const SUFFIX_LENGTH = 3;
/** Offset of the delta type's first letter inside a delta prefix (`{"type":"` is 9 characters). */
const TYPE_LETTER = 9;
/** An index longer than this is left to the full parse (15 digits are always an exact double). */
const MAX_INDEX_DIGITS = 15;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The event `data` decoded, or `undefined` when it is not one of the fixed layouts. */
export function matchDeltaLayout(data: string): LayoutDeltaEvent | undefined {
  if (!data.startsWith(EVENT_PREFIX)) return undefined;
  let at = EVENT_PREFIX.length;
  const first = data.charCodeAt(at) - 48;
  if (first < 0 || first > 9) return undefined;
  let index = first;
  at++;
  // JSON has no leading zeros: "01" is not a number, so a 0 must be the whole index.
  if (first !== 0) {
    const limit = at + MAX_INDEX_DIGITS - 1;
    for (let digit = data.charCodeAt(at) - 48; digit >= 0 && digit <= 9; digit = data.charCodeAt(at) - 48) {
      if (at >= limit) return undefined;
      index = index * 10 + digit;
      at++;
    }
  }
  if (!data.startsWith(DELTA_KEY, at)) return undefined;
  at += DELTA_KEY.length;
  const stop = data.length - SUFFIX_LENGTH;
  if (data.charCodeAt(stop) !== QUOTE || data.charCodeAt(stop + 1) !== 0x7d || data.charCodeAt(stop + 2) !== 0x7d) return undefined;
  // One letter picks the only candidate layout; then its whole prefix must match.
  switch (data.charCodeAt(at + TYPE_LETTER)) {
    case 0x74: // t: text_delta or thinking_delta
      if (data.startsWith(TEXT_PREFIX, at)) {
        const text = stringAt(data, at + TEXT_PREFIX.length, stop);
        return text === undefined ? undefined : { type: 'content_block_delta', index, delta: { type: 'text_delta', text } };
      }
      if (data.startsWith(THINKING_PREFIX, at)) {
        const thinking = stringAt(data, at + THINKING_PREFIX.length, stop);
        return thinking === undefined ? undefined : { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } };
      }
      return undefined;
    case 0x69: {
      // i: input_json_delta
      if (!data.startsWith(INPUT_PREFIX, at)) return undefined;
      const partial_json = stringAt(data, at + INPUT_PREFIX.length, stop);
      return partial_json === undefined ? undefined : { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } };
    }
    case 0x73: {
      // s: signature_delta
      if (!data.startsWith(SIGNATURE_PREFIX, at)) return undefined;
      const signature = stringAt(data, at + SIGNATURE_PREFIX.length, stop);
      return signature === undefined ? undefined : { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature } };
    }
    default:
      return undefined;
  }
}

/**
 * The value of the JSON string literal whose content is `data[start, stop)` (its closing quote at
 * `stop`), or `undefined` when that content is not a valid literal ending exactly there.
 */
function stringAt(data: string, start: number, stop: number): string | undefined {
  if (start > stop) return undefined;
  let escaped = false;
  let at = start;
  while (at < stop) {
    const code = data.charCodeAt(at);
    if (code === BACKSLASH) {
      const next = escapeLength(data, at + 1);
      if (next === 0) return undefined;
      escaped = true;
      at += next + 1;
    } else if (code < 0x20 || code === QUOTE) {
      return undefined; // a raw control character, or a quote that ends the literal early
    } else {
      at++;
    }
  }
  // An escape can run past `stop` ("…\"}}"): the literal must end exactly at the closing quote.
  if (at !== stop) return undefined;
  if (!escaped) return data.slice(start, stop);
  // Validated above, so this parse cannot fail; it handles \uXXXX and lone surrogates as the full parse does.
  return JSON.parse(data.slice(start - 1, stop + 1)) as string;
}

/** Characters after the backslash that form a valid escape at `at` (1, or 5 for \uXXXX); 0 if invalid. */
function escapeLength(data: string, at: number): number {
  switch (data.charCodeAt(at)) {
    case QUOTE:
    case BACKSLASH:
    case 0x2f: // /
    case 0x62: // b
    case 0x66: // f
    case 0x6e: // n
    case 0x72: // r
    case 0x74: // t
      return 1;
    case 0x75: // u
      return isHex(data.charCodeAt(at + 1)) && isHex(data.charCodeAt(at + 2)) && isHex(data.charCodeAt(at + 3)) && isHex(data.charCodeAt(at + 4)) ? 5 : 0;
    default:
      return 0;
  }
}

function isHex(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
}
