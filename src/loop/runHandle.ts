/**
 * `runHandle(start)`: a run that takes input while it runs, over any loop that reads `input$`
 * and acknowledges on `inputAcks` (`agentLoop`, `agentLoopWithSubagents`). The one submission
 * router behind `createAgentRun` and `createAgentTreeRun`.
 *
 * `submit` knows at once what became of its input, because the loop answers synchronously as it
 * reads a submission (see `SubmissionAck`):
 *
 * - before the loop reads its input (not subscribed yet, MCP servers still connecting), input
 *   waits here and is handed over first when it starts: accepted;
 * - while the loop reads, the loop's own answer: false once its input closed at the terminal
 *   (even from a handler of the very events that settle the queue, before the terminal);
 * - after the loop stopped reading: refused.
 *
 * ```
 * submit:   a       b           c
 * input$:   ^-(a)---b----------!             (a handed over on subscribe)
 * acks:       t     t      f                 f: b' submitted while the terminal is delivered
 * output:   --q-----q-s-...-(dT|)            c after the end: refused here, never read
 * ```
 */
import { concat, defer, finalize, from, Subject, type Observable } from 'rxjs';
import type { MessageParam } from '../protocol/content.js';
import type { AgentLoopOptions } from './options.js';
import type { Submission, SubmissionAck } from './runInput.js';
import type { LoopEvent } from './types.js';

/** Options of `AgentRun.submit`. */
export interface SubmitOptions {
  /** Default: `cmd-<n>`. */
  readonly id?: string;
  readonly interrupt?: boolean;
}

/** What `submit` answers at once; the submission's fate follows as `command_lifecycle` events with its `id`. */
export interface SubmitHandle {
  readonly id: string;
  /** False when the run had already ended: nothing was queued. */
  readonly accepted: boolean;
}

/** A running loop that accepts input while it runs (see `createAgentRun`). */
export interface AgentRun {
  /** Subscribe once: the run starts on subscribe and unsubscribing aborts it. */
  readonly events$: Observable<LoopEvent>;
  submit(input: string | MessageParam, options?: SubmitOptions): SubmitHandle;
}

/** Starts the loop with the handle's input stream and its acknowledgement observer. */
export type StartWithInput = (input: Pick<AgentLoopOptions, 'input$' | 'inputAcks'> & { readonly input$: Observable<Submission> }) => Observable<LoopEvent>;

export function runHandle(start: StartWithInput): AgentRun {
  let reading: 'not_yet' | 'reading' | 'stopped' = 'not_yet';
  const early: Submission[] = [];
  const submissions = new Subject<Submission>();
  const answers = new Map<string, boolean>();
  const inputAcks = { next: (ack: SubmissionAck) => void answers.set(ack.id, ack.accepted) };
  const input$ = defer(() => {
    reading = 'reading';
    return concat(from(early.splice(0)), submissions);
  }).pipe(
    finalize(() => {
      reading = 'stopped';
    }),
  );
  let counter = 0;
  const events$ = defer(() => start({ input$, inputAcks })).pipe(
    finalize(() => {
      reading = 'stopped';
    }),
  );
  return {
    events$,
    submit(input, options = {}) {
      const id = options.id ?? `cmd-${++counter}`;
      const submission: Submission = options.interrupt ? { id, input, interrupt: true } : { id, input };
      if (reading === 'stopped') return { id, accepted: false };
      if (reading === 'not_yet') {
        early.push(submission);
        return { id, accepted: true };
      }
      submissions.next(submission);
      const accepted = answers.get(id) === true;
      answers.delete(id);
      return { id, accepted };
    },
  };
}
