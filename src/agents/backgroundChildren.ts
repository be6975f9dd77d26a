/**
 * The background children of one agent tree node. `launch` starts a child at once (the Agent
 * call has already answered "launched"); its events reach the consumer through `events$`, which
 * the tree merges into its output, as `tool_progress` of the launching call. So a background
 * child lives exactly as long as the tree's subscription: the tree's end or unsubscribe cuts it.
 *
 * ```
 * launch:   --l---------------
 * child:      -i-a-(T|)           (its own loop, its own slot of the tree's caps)
 * events$:  ---p-p-(p)-------     p = the child's event in its envelope, as tool_progress
 * settled:          ^ the notification text, after T's progress, after the slot is freed
 * ```
 *
 * Every launch ends in exactly one `settled` call: with the notification text when the child
 * ended (well or not: a child that cannot even start is a failure notification, never the
 * tree's error), or with none when it was cut (the tree ended, or the launching call was
 * stopped before its "launched" result reached the model).
 */
import { catchError, EMPTY, filter, finalize, map, mergeMap, Subject, takeUntil, tap, type Observable } from 'rxjs';
import { fromAbortSignal } from '../../operators/internal/fromAbortSignal.js';
import type { LoopEvent } from '../loop/types.js';
import { renderAgentOutput } from './agentTool.js';
import { reportChild, type ChildOutcome, type ChildReport, type StartedChild } from './childReports.js';
import type { SubagentEventData } from './events.js';
import type { SubagentSlot } from './subagentSlots.js';
import { notificationText } from './texts.js';

export interface BackgroundSetup {
  /** A child's event as the tree's output event (the `tool_progress` of its Agent call). */
  readonly toEvent: (data: SubagentEventData) => LoopEvent;
  /** A child was launched (it runs until `settled`). */
  readonly launched: () => void;
  /** A child is over: `text` is its notification, undefined when it was cut. Called once. */
  readonly settled: (text: string | undefined) => void;
}

export interface BackgroundChildren {
  /** Every launched child's events; never completes by itself (the tree cuts it at its end). */
  readonly events$: Observable<LoopEvent>;
  /**
   * Starts `child`, which holds `slot` until it is over. `callSignal` is the launching call's:
   * if it aborts (the call was stopped before its result reached the model), the child is cut
   * with no notification, so the model's "the call was stopped" stays true.
   */
  launch(child: StartedChild, description: string, slot: SubagentSlot, callSignal?: AbortSignal): void;
}

export function createBackgroundChildren(setup: BackgroundSetup): BackgroundChildren {
  const children$ = new Subject<Observable<LoopEvent>>();
  return {
    events$: children$.pipe(mergeMap((child$) => child$)),
    launch(child, description, slot, callSignal) {
      setup.launched();
      let over = false;
      const settle = (text: string | undefined): void => {
        if (over) return;
        over = true;
        // Freed before the notification, which may start the parent's next phase (and its calls).
        slot.release();
        setup.settled(text);
      };
      const notify = (outcome: ChildOutcome): void =>
        settle(
          notificationText({
            agentId: child.agentId,
            agentType: child.agentType,
            description,
            ok: outcome.ok,
            body: outcome.ok ? renderAgentOutput(outcome.output) : outcome.text,
          }),
        );
      children$.next(
        reportChild(child).pipe(
          takeUntil(callSignal ? fromAbortSignal(callSignal) : EMPTY),
          // The child's terminal is reported first, then its notification is queued (which may
          // start the parent's next phase synchronously).
          tap((report) => report.type === 'end' && notify(report.outcome)),
          filter((report): report is Extract<ChildReport, { type: 'event' }> => report.type === 'event'),
          map((report) => setup.toEvent(report.data)),
          catchError((error: unknown) => {
            notify({ ok: false, text: `subagent ${child.agentId} (${child.agentType}) could not run: ${error instanceof Error ? error.message : String(error)}` });
            return EMPTY;
          }),
          // Cut when the tree ended or its call was stopped: nothing to deliver any more.
          finalize(() => settle(undefined)),
        ),
      );
    },
  };
}
