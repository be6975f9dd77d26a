/**
 * `createAgentTreeRun(options)`: the agent tree (`agentLoopWithSubagents({ input$ })`) plus an input queue,
 * with the same contract as `createAgentRun` (SPEC §9): `submit()` hands the ROOT loop user input
 * while the tree runs, and each submission reports `command_lifecycle` events (`queued`,
 * `started`, then `completed` / `cancelled` / `discarded`).
 *
 * - While the root's turn runs (a foreground child included: it is one of the root's tool
 *   calls), input goes into the root loop's queue and is absorbed after the current tool batch;
 *   `interrupt: true` cancels the root's iteration when it is interruptible, as with one loop.
 * - While the tree waits for background children after the root's turn ended, input starts the
 *   next root phase at once, like a child's notification does (both join its prompt when they
 *   arrive together).
 * - Once the tree's terminal is decided, `submit` returns `accepted: false`; input still queued
 *   then is reported `discarded`.
 *
 * ```
 * submit:              s                     (queued while child1 runs in the foreground)
 * output:  -i-a-t-p-p-q-p-r-s'-T-i-a-(T|)    q queued, r the Agent result, s' started (absorbed
 *                                            with the batch's results), T transition
 * ```
 */
import { runHandle, type AgentRun } from '../loop/runHandle.js';
import { agentLoopWithSubagents, type AgentTreeOptions } from './agentTree.js';

/** Runs an agent tree whose root takes user input while it runs; subscribe to `events$` once. */
export function createAgentTreeRun(options: AgentTreeOptions): AgentRun {
  // The same handle as createAgentRun: the tree reads `input$` and acknowledges each submission.
  return runHandle((input) => agentLoopWithSubagents({ ...options, ...input }));
}
