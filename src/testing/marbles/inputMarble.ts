/**
 * `inputMarble(marbles, inputs)`: user input for `agentLoop({ input$ })` drawn as a diagram, as
 * `{ marbles, values }` for `hot()`. Each letter is one submission typed in its frame: a string is
 * the text typed, an object may add `interrupt` (cut the current iteration) or give a whole user
 * message. A letter's id defaults to `input-<letter>`, so its lifecycle events and the request
 * that carried it can be matched back to the diagram.
 *
 * @example
 * ```ts
 * const typed = inputMarble('----a', { a: 'also check the tests' });
 * const input$ = hot(typed.marbles, typed.values);
 * expectObservable(agentLoop({ model, prompt, input$, deps }).pipe(eventLetters())).toBe(...);
 * expectSubscriptions(input$.subscriptions).toBe('^-----------!'); // read until the terminal
 * ```
 */
import type { MessageParam } from '../../protocol/content.js';
import type { Submission } from '../../loop/runInput.js';

/** One letter's input: the text typed, or the text (or message) with its id and interrupt flag. */
export type TypedInput = string | { readonly input: string | MessageParam; readonly interrupt?: boolean; readonly id?: string };

/** A diagram of user input and its submissions, ready for `hot(marbles, values)`. */
export interface InputMarble {
  readonly marbles: string;
  readonly values: Readonly<Record<string, Submission>>;
}

/** Checks that every letter of `marbles` has an input and every input a letter, then builds the values. */
export function inputMarble(marbles: string, inputs: Readonly<Record<string, TypedInput>>): InputMarble {
  const drawn = new Set(lettersOf(marbles));
  for (const letter of drawn) if (!(letter in inputs)) throw new RangeError(`inputMarble: the letter '${letter}' of '${marbles}' has no input`);
  const values: Record<string, Submission> = {};
  for (const [letter, typed] of Object.entries(inputs)) {
    if (!drawn.has(letter)) throw new RangeError(`inputMarble: the input '${letter}' is not in '${marbles}'`);
    values[letter] = typeof typed === 'string' ? { id: `input-${letter}`, input: typed } : { id: `input-${letter}`, ...typed };
  }
  return { marbles, values };
}

/** The value letters of a diagram: time progressions (`10ms`) and marble syntax are not letters. */
function lettersOf(marbles: string): string[] {
  const withoutTime = marbles.replace(/(^|\s)\d+(\.\d+)?(ms|s|m)(?=\s|$)/g, ' ');
  return [...withoutTime].filter((ch) => !'-()|#^! '.includes(ch));
}
