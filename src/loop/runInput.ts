/**
 * The input side of one run: a `scan` of `stepInput` (inputState.ts) over one action stream —
 * the run's submissions (`agentLoop({ input$ })`, the agent tree's router) and the loop's own
 * actions (absorb after a tool batch, a request carrying the absorbed input, the scheduler's
 * interruptible switch, the close at the terminal). Each action is applied synchronously, in
 * order, so the one who dispatched it reads its step at once: that is how a submission learns
 * on the spot whether it was taken (`accepted`), and how the iteration gets what it absorbed.
 */
import { ignoreElements, map, scan, Subject, tap, type Observable } from 'rxjs';
import type { MessageParam, TextBlock } from '../protocol/content.js';
import { INITIAL_INPUT, stepInput, type InputAction, type InputState, type InputStep, type LifecycleChange, type QueuedCommand } from './inputState.js';
import type { LoopEvent, QueryTracking } from './types.js';

export type { QueuedCommand } from './inputState.js';

/**
 * One piece of user input for a running loop (`agentLoop({ input$ })`): absorbed after the
 * current tool batch, or, with `interrupt`, cutting the current iteration when it may.
 */
export interface Submission {
  readonly id: string;
  readonly input: string | MessageParam;
  readonly interrupt?: boolean;
}

/**
 * The loop's answer to one submission, given synchronously as it reads it from `input$`
 * (`agentLoop({ inputAcks })`): `accepted: false` once the input closed (the terminal is being
 * delivered; nothing was queued). A submission the loop no longer reads gets no answer.
 */
export interface SubmissionAck {
  readonly id: string;
  readonly accepted: boolean;
}

/** A submission as the command the queue keeps (its text blocks; non-text parts dropped). */
export function commandOf(submission: Submission): QueuedCommand {
  return { id: submission.id, content: toBlocks(submission.input), interrupt: submission.interrupt ?? false };
}

/**
 * The edge of both submission routers (a loop's input, the agent tree's): reads `input$`, hands
 * each submission to `take` and acknowledges it at once with `take`'s answer.
 */
export function readSubmissions(
  input$: Observable<Submission>,
  acks: { next(ack: SubmissionAck): void } | undefined,
  take: (command: QueuedCommand) => boolean,
): Observable<never> {
  return input$.pipe(
    tap((submission) => {
      // Taken first, whether or not anyone reads the acks (`acks?.next(take(…))` would skip it).
      const accepted = take(commandOf(submission));
      acks?.next({ id: submission.id, accepted });
    }),
    ignoreElements(),
  );
}

/** A submission as the text blocks absorbed into the next user message (non-text parts dropped). */
export function toBlocks(input: string | MessageParam): TextBlock[] {
  if (typeof input === 'string') return [{ type: 'text', text: input }];
  if (typeof input.content === 'string') return [{ type: 'text', text: input.content }];
  return input.content.flatMap((b) => (b.type === 'text' ? [{ type: 'text' as const, text: b.text }] : []));
}

export interface RunInput {
  /** Tracking of the current iteration, for lifecycle events produced outside it. */
  tracking: QueryTracking;
  /** The state after the last action. */
  state(): InputState;
  /**
   * Fires when an interrupting submission cancels the current iteration (only while it is
   * interruptible: streaming, or every running tool is 'cancel'). The run goes on with the input.
   */
  readonly interrupt$: Observable<void>;
  /** The `queued` events of submissions, as loop events, for the run's output. */
  readonly lifecycle$: Observable<LoopEvent>;
  /** Queues user input (reported `queued`, may interrupt); false once the input closed. */
  submit(command: QueuedCommand): boolean;
  /** Queues the agent tree's own input (a notification) without a report. */
  notify(command: QueuedCommand): void;
  /** Commands the run's prompt already carries: started now. */
  adopt(ids: readonly string[]): void;
  /** Takes the whole queue: its content, and a `started` event per command. */
  absorb(): { readonly content: readonly TextBlock[]; readonly events: readonly LoopEvent[] };
  /** A request is about to carry the absorbed commands. */
  markSeen(): void;
  setInterruptible(value: boolean): void;
  /** Closes the input: how each command ended (absorbed ones by `ok`, queued ones discarded). */
  close(ok: boolean, tracking: QueryTracking): readonly LoopEvent[];
  dispose(): void;
}

export function lifecycleEvent(change: LifecycleChange, tracking: QueryTracking): LoopEvent {
  return change.seenByModel === undefined
    ? { type: 'command_lifecycle', id: change.id, status: change.status, chainId: tracking.chainId, depth: tracking.depth }
    : { type: 'command_lifecycle', id: change.id, status: change.status, seenByModel: change.seenByModel, chainId: tracking.chainId, depth: tracking.depth };
}

export function createRunInput(tracking: QueryTracking): RunInput {
  const actions$ = new Subject<InputAction>();
  const interrupt$ = new Subject<void>();
  const queued$ = new Subject<LifecycleChange>();
  let last: InputStep = { state: INITIAL_INPUT, changes: [], accepted: false, interrupt: false, absorbed: [] };
  // The scan is subscribed for the run's whole life; `dispatch` reads the step it produced.
  const subscription = actions$.pipe(scan((previous: InputStep, action: InputAction) => stepInput(previous.state, action), last)).subscribe((step) => {
    last = step;
  });
  const dispatch = (action: InputAction): InputStep => {
    actions$.next(action);
    return last;
  };
  const input: RunInput = {
    tracking,
    state: () => last.state,
    interrupt$: interrupt$.asObservable(),
    lifecycle$: queued$.pipe(map((change) => lifecycleEvent(change, input.tracking))),
    submit(command) {
      const step = dispatch({ type: 'submit', command });
      for (const change of step.changes) queued$.next(change);
      if (step.interrupt) interrupt$.next();
      return step.accepted;
    },
    notify: (command) => void dispatch({ type: 'notify', command }),
    adopt: (ids) => void dispatch({ type: 'adopt', ids }),
    absorb() {
      const step = dispatch({ type: 'absorb' });
      return { content: step.absorbed.flatMap((c) => c.content), events: step.changes.map((c) => lifecycleEvent(c, input.tracking)) };
    },
    markSeen: () => void dispatch({ type: 'seen' }),
    setInterruptible: (value) => void dispatch({ type: 'interruptible', value }),
    close: (ok, at) => dispatch({ type: 'close', ok }).changes.map((c) => lifecycleEvent(c, at)),
    dispose() {
      subscription.unsubscribe();
      queued$.complete();
    },
  };
  return input;
}
