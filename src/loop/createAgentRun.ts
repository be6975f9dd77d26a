/**
 * `createAgentRun(options)`: the loop plus an input queue (SPEC §9), a thin handle over
 * `agentLoop({ input$, inputAcks })` (see `runHandle`). `events$` is the loop's event stream;
 * `submit()` hands it user input while it runs.
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
import { agentLoop } from './agentLoop.js';
import type { AgentLoopOptions } from './options.js';
import { runHandle, type AgentRun } from './runHandle.js';

export type { AgentRun, SubmitHandle, SubmitOptions } from './runHandle.js';
export { toBlocks } from './runInput.js';

/** The loop of `options` plus an input queue: `submit()` input while `events$` runs. */
export function createAgentRun(options: AgentLoopOptions): AgentRun {
  return runHandle((input) => agentLoop({ ...options, ...input }));
}
