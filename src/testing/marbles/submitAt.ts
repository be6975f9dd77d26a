/**
 * `submitAt(run, frame, ...args)`: hot user input for a marble test. Calls `run.submit(...args)`
 * at `frame` (virtual inside `TestScheduler.run`) and keeps what it answered.
 *
 * @example
 * ```ts
 * const run = createAgentRun({ model: 'm', prompt: 'go', deps: { callModel: model.callModel } });
 * const typed = submitAt(run, 4, 'also check the tests', { id: 'c1' });
 * expectObservable(run.events$.pipe(eventLetters())).toBe(...);
 * flush();
 * typed.answer; // { id: 'c1', accepted: true }
 * ```
 */
import { timer } from 'rxjs';

/** What {@link submitAt} keeps: `answer` is set once the frame has come. */
export interface ScheduledSubmission<H> {
  readonly answer: H | undefined;
}

/** Submits to anything with a `submit` method (an agent run, a tree run) at `frame`. */
export function submitAt<A extends unknown[], H>(run: { submit(...args: A): H }, frame: number, ...args: A): ScheduledSubmission<H> {
  const kept: { answer: H | undefined } = { answer: undefined };
  timer(frame).subscribe(() => (kept.answer = run.submit(...args)));
  return kept;
}
