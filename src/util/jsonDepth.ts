/**
 * How deeply a JSON text nests, without parsing it. `JSON.parse` copes with any depth, but
 * `JSON.stringify`, zod and every recursive walk do not: a hostile server sending a tool input
 * nested 100,000 levels deep crashed the run when the transcript line was written. Values from
 * outside are checked here before they are kept. Linear, allocation-free.
 */

/** Deeper than any honest tool input or API event; far below where `JSON.stringify` overflows. */
export const MAX_JSON_DEPTH = 256;

/** Whether `text` opens more than `max` arrays/objects inside one another (strings are skipped). */
export function jsonNestsDeeperThan(text: string, max: number = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** The same check for a value already parsed (iterative, so it cannot overflow itself). */
export function valueNestsDeeperThan(value: unknown, max: number = MAX_JSON_DEPTH): boolean {
  const stack: Array<{ v: unknown; d: number }> = [{ v: value, d: 0 }];
  while (stack.length > 0) {
    const { v, d } = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d + 1 > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) {
      if (typeof child === 'object' && child !== null) stack.push({ v: child, d: d + 1 });
    }
  }
  return false;
}
