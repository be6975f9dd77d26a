/**
 * Writes a marble diagram from absolute frames, so no caller counts characters. In
 * `TestScheduler.run` every character of a diagram takes a frame, a group `(ab)` included
 * (its parentheses too), which makes hand-placed frames easy to get wrong; here each group is
 * reached with an explicit `Nms` gap computed from where the previous one left the clock. A
 * timeline the syntax cannot write (a value in the frames a group takes up) is a RangeError.
 */

/** Letters for the values of a generated diagram, in order (no digit: `3ms` means time). */
export const MARBLE_LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';

/** One notification of a diagram: a value's letter at a frame. */
export interface TimedLetter {
  readonly frame: number;
  readonly letter: string;
}

/** How a diagram ends after its last value: completes (`|`), errors (`#`) or never ends. */
export type MarbleEnd = { readonly kind: 'complete' | 'error'; readonly frame: number } | { readonly kind: 'never' };

/** The diagram for `letters` (frames ascending or equal) and its `end`. */
export function marbleFromTimeline(letters: readonly TimedLetter[], end: MarbleEnd): string {
  const groups = new Map<number, string>();
  for (const { frame, letter } of letters) {
    if (!Number.isInteger(frame) || frame < 0) throw new RangeError(`marble frames are non-negative integers, got ${frame}`);
    groups.set(frame, (groups.get(frame) ?? '') + letter);
  }
  if (end.kind !== 'never') groups.set(end.frame, (groups.get(end.frame) ?? '') + (end.kind === 'complete' ? '|' : '#'));
  const parts: string[] = [];
  let clock = 0;
  for (const frame of [...groups.keys()].sort((a, b) => a - b)) {
    const symbols = groups.get(frame)!;
    if (frame < clock) {
      // A group of n symbols takes n + 2 frames: nothing can be placed inside it.
      throw new RangeError(`marble: frame ${frame} falls inside the group before it, which takes frames up to ${clock - 1}; space the events further apart`);
    }
    if (frame > clock) parts.push(`${frame - clock}ms`);
    parts.push(symbols.length === 1 ? symbols : `(${symbols})`);
    clock = frame + (symbols.length === 1 ? 1 : symbols.length + 2);
  }
  // Spaces only separate tokens: `TestScheduler.run` ignores them.
  return parts.join(' ');
}
