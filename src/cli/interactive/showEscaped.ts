/**
 * Text a person must judge before approving it, shown so that nothing in it can hide: control
 * characters and escape sequences (which could recolor, move the cursor or rewrite what the
 * terminal shows), bidirectional overrides and zero-width characters (which make code read
 * differently from what runs) are written out as `\x1b`, `\u202e` and so on. Newlines stay
 * line breaks (a multi-line command is common and readable); a CR is shown as `\r`.
 *
 * Written here because the shared escaper of the security issue (#15) has not landed; when it
 * does, this should use it.
 */
const HIDDEN = /[\x00-\x09\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]/g;

export function showEscaped(text: string): string {
  return text.replace(HIDDEN, (c) => {
    if (c === '\t') return '\\t';
    if (c === '\r') return '\\r';
    const code = c.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
