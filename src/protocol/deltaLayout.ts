/**
 * The fixed layouts of the API's hot event, recognised without `JSON.parse`.
 *
 * Most of a response is `content_block_delta` events that the API always writes the same way:
 *
 *   {"type":"content_block_delta","index":3,"delta":{"type":"text_delta","text":"…"}}
 *
 * (likewise `input_json_delta`/`partial_json`, `thinking_delta`/`thinking`,
 * `signature_delta`/`signature`). Parsing such an event with `JSON.parse` builds two objects
 * from a generic grammar; here the fixed parts are matched as text, the index read as digits and
 * the one string literal read once (the fixed parts and the literal's plain run by a sticky
 * regular expression, native code). A literal without escapes or control characters is its own
 * value (a slice); any other is given to `JSON.parse` alone, which accepts exactly what the full
 * parse would accept there and gives the same value.
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

/**
 * The fixed part up to the literal's opening quote, then the literal's plain run, as one sticky
 * pattern: the event prefix, an index as JSON writes a non-negative integer (no leading zero, at
 * most 15 digits so it is an exact double), one of the four delta prefixes, and the characters
 * that need no care (anything but a quote, a backslash or a control character), so `lastIndex`
 * ends where the literal ends or at its first escape. Irregexp compiles it to native code, which
 * measured 3-4x faster than comparing the same prefixes with `startsWith` and a digit loop; one
 * pattern instead of the prefix and the plain run apart is one regexp call per delta fewer
 * (3-5% of the decoder's time on the 200 KiB tool input, measured in one process).
 */
const LAYOUT_HEAD =
  /\{"type":"content_block_delta","index":(?:0|[1-9][0-9]{0,14}),"delta":\{"type":"(?:text_delta","text|thinking_delta","thinking|input_json_delta","partial_json|signature_delta","signature)":"[^"\\\u0000-\u001f]*/y;
/** Where the index's digits start. */
const INDEX_AT = '{"type":"content_block_delta","index":'.length;
/** From the index's end to the delta type's first letter: `,"delta":{"type":"`. */
const DELTA_TYPE_AFTER_INDEX = ',"delta":{"type":"'.length;
/** The literal's closing quote, then the delta's and the event's braces, then nothing. */
const SUFFIX_LENGTH = 3;

const QUOTE = 0x22;
const CLOSE_BRACE = 0x7d;

/**
 * From the delta type's first letter to the literal's first character, told apart by the
 * type's second letter (the pattern matched one of the four): t(e)xt, t(h)inking, i(n)put_json,
 * s(i)gnature.
 */
function literalOffset(secondLetter: number): number {
  switch (secondLetter) {
    case 0x65:
      return 'text_delta","text":"'.length;
    case 0x68:
      return 'thinking_delta","thinking":"'.length;
    case 0x6e:
      return 'input_json_delta","partial_json":"'.length;
    default:
      return 'signature_delta","signature":"'.length;
  }
}

/** The event `data` decoded, or `undefined` when it is not one of the fixed layouts. */
export function matchDeltaLayout(data: string): LayoutDeltaEvent | undefined {
  LAYOUT_HEAD.lastIndex = 0;
  if (!LAYOUT_HEAD.test(data)) return undefined;
  const plainEnd = LAYOUT_HEAD.lastIndex;
  let at = INDEX_AT;
  let index = 0;
  for (let digit = data.charCodeAt(at) - 48; digit >= 0 && digit <= 9; digit = data.charCodeAt(++at) - 48) index = index * 10 + digit;
  const typeAt = at + DELTA_TYPE_AFTER_INDEX;
  const start = typeAt + literalOffset(data.charCodeAt(typeAt + 1));
  const stop = data.length - SUFFIX_LENGTH;
  if (start > stop || data.charCodeAt(stop) !== QUOTE || data.charCodeAt(stop + 1) !== CLOSE_BRACE || data.charCodeAt(stop + 2) !== CLOSE_BRACE) return undefined;
  const value = plainEnd === stop ? data.slice(start, stop) : escapedStringAt(data, start, stop);
  if (value === undefined) return undefined;
  // The key's last letter (just before `":"`) tells the four layouts apart: tex(t),
  // thinkin(g), partial_jso(n), signatur(e).
  switch (data.charCodeAt(start - 4)) {
    case 0x74:
      return { type: 'content_block_delta', index, delta: { type: 'text_delta', text: value } };
    case 0x67:
      return { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: value } };
    case 0x6e:
      return { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: value } };
    default:
      return { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: value } };
  }
}

/**
 * The value of the JSON string literal whose content is `data[start, stop)` (its quotes at
 * `start - 1` and `stop`), or `undefined` when that is not one valid literal.
 *
 * `JSON.parse` of exactly that slice is the whole check: it accepts only a single value filling
 * the slice, so a quote that ended the literal early, a raw control character or a bad escape
 * all throw, and what it returns is what the full parse of the event would hold (\uXXXX, lone
 * surrogates). A scan in JavaScript before it, as this once did, read every character a second
 * time; a throw here is rare (malformed text) and falls back to the full parse, which reports it.
 */
function escapedStringAt(data: string, start: number, stop: number): string | undefined {
  try {
    return JSON.parse(data.slice(start - 1, stop + 1)) as string;
  } catch {
    return undefined;
  }
}
