/**
 * `createAgentRun(options)`: the loop plus an input queue (SPEC §9). `events$` is the loop's
 * event stream; `submit()` hands it user input while it runs.
 *
 * - Input is absorbed after the current tool batch, next to the tool results, so the model sees
 *   it in the next request; input that arrives while the turn is ending starts one more turn.
 * - `interrupt: true` cancels the current iteration when it is interruptible (the model is
 *   streaming and no running tool is 'block', or every running tool is 'cancel'); its
 *   unfinished tools get "interrupted" results and the run goes on with the input. Otherwise
 *   the input waits in the queue like any other.
 * - Each submission reports `command_lifecycle` events: `queued`, `started` (absorbed), then
 *   `completed` (the run ended on a controlled path) / `cancelled` (error or abort) /
 *   `discarded` (still queued when the run ended). `seenByModel` says whether a request
 *   carried it.
 */
import { concat, defer, finalize, from, map, type Observable } from 'rxjs';
import type { MessageParam } from '../protocol/content.js';
import { loopOf } from './agentLoop.js';
import { createRunContext, type RunContext } from './runContext.js';
import { toBlocks, type QueuedCommand } from './runInput.js';
import type { AgentLoopOptions } from './options.js';
import type { CommandStatus, LoopEvent } from './types.js';

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

/** A running loop that accepts input while it runs (see {@link createAgentRun}). */
export interface AgentRun {
  /** Subscribe once: the run starts on subscribe and unsubscribing aborts it. */
  readonly events$: Observable<LoopEvent>;
  submit(input: string | MessageParam, options?: SubmitOptions): SubmitHandle;
}

export { toBlocks };

function lifecycleEvent(ctx: RunContext, id: string, status: CommandStatus): LoopEvent {
  return { type: 'command_lifecycle', id, status, chainId: ctx.chainId, depth: ctx.input.tracking.depth };
}

/**
 * The loop of `options` plus an input queue: `submit()` input while `events$` runs (see the file head for when it is absorbed).
 */
export function createAgentRun(options: AgentLoopOptions): AgentRun {
  let active: RunContext | undefined;
  let ended = false;
  // Submissions made before subscribe enter the first queue.
  const early: QueuedCommand[] = [];
  let counter = 0;

  const events$ = defer(() => {
    const ctx = createRunContext(options);
    active = ctx;
    const waiting = early.splice(0);
    ctx.input.queue.push(...waiting);
    const lifecycle$ = concat(
      from(waiting.map((c) => lifecycleEvent(ctx, c.id, 'queued'))),
      ctx.input.lifecycle$.pipe(map(({ id, status }) => lifecycleEvent(ctx, id, status))),
    );
    return loopOf(ctx, lifecycle$).pipe(
      finalize(() => {
        ended = true;
        active = undefined;
      }),
    );
  });

  return {
    events$,
    submit(input, submitOptions = {}) {
      const id = submitOptions.id ?? `cmd-${++counter}`;
      // Once the terminal is being delivered the queue is settled: nothing more is accepted.
      if (ended || active?.input.inputClosed) return { id, accepted: false };
      const command: QueuedCommand = { id, content: toBlocks(input), interrupt: submitOptions.interrupt ?? false };
      const ctx = active;
      if (!ctx) {
        early.push(command);
        return { id, accepted: true };
      }
      return { id, accepted: ctx.input.receive(command) };
    },
  };
}
