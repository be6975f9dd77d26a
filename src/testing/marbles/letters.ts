/**
 * `letters(map)` / `eventLetters()`: an operator that turns the loop's events into marble letters
 * and drops every event it has no letter for, so one diagram shows a whole loop's timing. Several
 * events in one frame become a group, e.g. `(rutiaT|)`; without a values argument `toBe` compares
 * the letters themselves.
 *
 * @example
 * ```ts
 * expectObservable(events$.pipe(eventLetters())).toBe('i--s----r----(autiaT|)');
 * expectObservable(events$.pipe(letters({ tool_start: 's', terminal: 'T' }))).toBe('---s-----T|');
 * ```
 */
import { filter, map, pipe, type OperatorFunction } from 'rxjs';
import type { LoopEvent } from '../../loop/types.js';

/** A letter per event type, or a function choosing one per event (undefined drops the event). */
export type LetterMap = Partial<Record<LoopEvent['type'], string>> | ((event: LoopEvent) => string | undefined);

/** Maps each event to its letter and drops the events without one. */
export function letters(chosen: LetterMap): OperatorFunction<LoopEvent, string> {
  const letterOf = typeof chosen === 'function' ? chosen : (event: LoopEvent) => chosen[event.type];
  return pipe(
    map(letterOf),
    filter((letter): letter is string => letter !== undefined),
  );
}

/**
 * The letters of {@link eventLetters}: i iteration_start, s tool_start, p tool_progress,
 * r tool_result, a assistant_message, u user_message (not the opening prompt), b compact_boundary,
 * t transition, w warning, T terminal. Model stream events and lifecycle events get none.
 */
export const EVENT_LETTERS: Readonly<Partial<Record<LoopEvent['type'], string>>> = {
  iteration_start: 'i',
  tool_start: 's',
  tool_progress: 'p',
  tool_result: 'r',
  assistant_message: 'a',
  user_message: 'u',
  compact_boundary: 'b',
  transition: 't',
  warning: 'w',
  terminal: 'T',
};

/** {@link letters} with {@link EVENT_LETTERS}; the opening prompt's user_message is left out (it is always first). */
export function eventLetters(): OperatorFunction<LoopEvent, string> {
  return letters((event) => (event.type === 'user_message' && event.reason === 'prompt' ? undefined : EVENT_LETTERS[event.type]));
}
