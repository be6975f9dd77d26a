/**
 * `agentLoopWithSubagents`: an `agentLoop` whose model can start subagents through the `Agent`
 * tool. A subagent is not a special case inside the loop: it is another agent tree node (so it
 * may have subagents of its own, down to `maxDepth`) with its own messages, tools, permission
 * policy, abort and transcript, composed into the parent like any other Observable:
 *
 * - foreground children run inside the Agent tool's call (unsubscribing the call cancels them);
 * - background children are merged into this node's output (backgroundChildren.ts), so they
 *   live exactly as long as the node: when it ends or is unsubscribed they are cut, and
 *   aborting `signal` aborts them.
 *
 * A background child's final message goes into the parent loop's input as a notification
 * (absorbed after a tool batch, SPEC §2 step 1 / §9). If the parent's turn ends (`completed`)
 * while children still run or notifications are still undelivered, the node waits for the next
 * notification and continues the conversation with it as the next user message: a new phase
 * of the same run (same `chainId`, treePhase.ts); the consumer still sees exactly one terminal,
 * with the phases' turns and usage summed and the cost of the whole subtree (treeTotals.ts).
 * What the node remembers between phases is one pure reducer (treeInbox.ts).
 *
 * ```
 * parent:  -i-a-s(r: launched id1)-T-i-a-(T: completed)       T of phase 1 is held back
 * child1:       --i-m-a-(T: completed) ------>|               its answer is queued
 * output:  -i-a-s-r-t-i-a---p-p-p-p----i-a-(T|)               p = tool_progress of child1
 *                                       ^ phase 2: notification as the prompt
 * ```
 */
import { randomUUID } from 'node:crypto';
import { setMaxListeners } from 'node:events';
import { asyncScheduler, defer, EMPTY, finalize, from, map, merge, mergeMap, Observable, of, race, Subject, take, takeUntil } from 'rxjs';
import { expandSteps } from '../../operators/internal/expandSteps.js';
import { fromAbortSignal } from '../../operators/internal/fromAbortSignal.js';
import { ConfigurationError } from '../errors.js';
import { withMcpServers } from '../mcp/withMcpServers.js';
import type { CallModel } from '../loop/options.js';
import { createCostBudget } from '../loop/pricing.js';
import { readSubmissions, type QueuedCommand } from '../loop/runInput.js';
import type { LoopEvent, TerminalEvent } from '../loop/types.js';
import type { MessageParam } from '../protocol/content.js';
import { AGENT_TOOL_NAME, createAgentTool } from './agentTool.js';
import { createBackgroundChildren } from './backgroundChildren.js';
import { mergeAgentDefinitions } from './definitions.js';
import { createSubagentLauncher, type NodeConfig } from './subagentLauncher.js';
import { createSubagentSlots } from './subagentSlots.js';
import { createTreeBudget } from './treeBudget.js';
import { createTreeInbox, hasInput, shouldWait } from './treeInbox.js';
import { DEFAULT_MAX_AGENT_DEPTH, type AgentTreeOptions } from './treeOptions.js';
import { lifecycleOf, runPhase, type PhaseEnd, type PhaseHost, type PhaseStart } from './treePhase.js';
import { NO_TOTALS, treeTerminal } from './treeTotals.js';

export { DEFAULT_MAX_AGENT_DEPTH, type AgentTreeOptions, type SubagentInfo, type SubagentOptions } from './treeOptions.js';

/**
 * Runs an agent loop whose model may start subagents with the `Agent` tool.
 *
 * Child events reach the consumer as `tool_progress` events of the Agent call carrying a
 * `SubagentEventData` (see `subagentEventOf`). The terminal's `costUsd` is the whole tree's.
 */
export function agentLoopWithSubagents(options: AgentTreeOptions): Observable<LoopEvent> {
  // MCP servers connect once for the whole tree; children reach them through `refreshTools`.
  return withMcpServers(options, (withTools) => defer(() => rootTree(withTools)));
}

/** The top-level tree (depth 0); its root loop reads `options.input$` (see `createAgentTreeRun`). */
export function rootTree(options: AgentTreeOptions): Observable<LoopEvent> {
  const agents = options.agents;
  return treeNode(options, {
    depth: 0,
    definitions: mergeAgentDefinitions(agents?.definitions ?? []),
    agentToolAllowed: true,
    slots: createSubagentSlots({
      ...(agents?.maxConcurrent !== undefined ? { maxConcurrent: agents.maxConcurrent } : {}),
      ...(agents?.maxPerRun !== undefined ? { maxPerRun: agents.maxPerRun } : {}),
    }),
  });
}

type PhaseStep = PhaseStart | PhaseEnd;
const isPhaseStep = (item: LoopEvent | PhaseStep): item is PhaseStep => item.type === 'phase_start' || item.type === 'phase_end';

/**
 * One node of the tree (the root, or a child started by an Agent call), as the card draws it:
 *
 * ```
 * phases:      S1 -> runPhase -> E1 -> afterPhase -> S2 -> runPhase -> E2 -> afterPhase -> T
 *                   (expand: each step projects the next stretch; events go straight out)
 * background:  the children's events, merged in until the phases end
 * input:       submissions routed into the running phase, or held for the next one
 * ```
 */
function treeNode(options: AgentTreeOptions, node: NodeConfig): Observable<LoopEvent> {
  const agents = options.agents ?? {};
  const maxDepth = agents.maxDepth ?? DEFAULT_MAX_AGENT_DEPTH;
  const toolName = agents.toolName ?? AGENT_TOOL_NAME;
  const baseTools = options.tools ?? [];
  if (baseTools.some((t) => t.name === toolName)) {
    throw new ConfigurationError(`a tool named ${toolName} is already in \`tools\`; the agent tree adds its own`);
  }
  const budget = createTreeBudget(options.budget ?? (options.maxBudgetUsd !== undefined ? createCostBudget(options.maxBudgetUsd) : undefined));
  // The loop's clock: `deps.now`, else the scheduler's (the loop's own trampoline reads
  // asyncScheduler's), so a tree's durationMs is virtual under TestScheduler like a loop's.
  const now = options.deps?.now ?? (() => (options.deps?.scheduler ?? asyncScheduler).now());
  const startedAt = now();
  const chainId = options.chainId ?? (options.deps?.uuid ?? randomUUID)();
  const baseCallModel: CallModel | undefined =
    options.deps?.callModel ?? (options.client ? (request, callOptions) => options.client!.stream(request, callOptions) : undefined);

  // Aborting the caller's signal aborts this loop and every child; so does the end of the tree.
  const controller = new AbortController();
  // Each running child, the running phase and a waiting tree listen to this signal: a number
  // the caps bound (`maxConcurrent`), so Node's leak warning at 11 listeners is a false alarm.
  setMaxListeners(0, controller.signal);
  const onAbort = () => controller.abort();
  if (options.signal?.aborted) controller.abort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });

  const inbox = createTreeInbox(chainId);
  /** A notification, or a submission for the next phase: what a waiting tree waits for. */
  const arrivals$ = new Subject<void>();
  /** Lifecycle events of submissions no phase could take (reported `queued` by the node). */
  const outOfPhase$ = new Subject<LoopEvent>();

  const background = createBackgroundChildren({
    toEvent: (data) => ({ type: 'tool_progress', toolUseId: data.parentToolUseId, name: toolName, data, chainId: host.tracking.chainId, depth: host.tracking.depth }),
    launched: () => void inbox.dispatch({ type: 'launch' }),
    settled: (text) => {
      const { notice } = inbox.dispatch(text === undefined ? { type: 'settle' } : { type: 'settle', text });
      if (!notice) return;
      // Into the running phase's queue (absorbed after its tool batch), silently: the tree hides
      // its lifecycle. Between phases it waits in the inbox and starts the next phase.
      host.current?.notify({ id: notice.id, content: [{ type: 'text', text: notice.text }], interrupt: false });
      arrivals$.next();
    },
  });
  const launcher = createSubagentLauncher({ options, node, budget, baseCallModel, toolName, nodeSignal: controller.signal, background, spawn: treeNode });
  const agentTool = node.depth < maxDepth && node.agentToolAllowed ? createAgentTool(launcher, toolName) : undefined;
  const host: PhaseHost = {
    options,
    tools: agentTool ? [...baseTools, agentTool] : baseTools,
    budget,
    chainId,
    signal: controller.signal,
    inbox,
    current: undefined,
    tracking: { chainId, depth: 0 },
  };

  // Submissions (`input$`, read by the root only: children are built without it). While a phase
  // runs they go into its loop's input, exactly as with `createAgentRun`. Between phases (before
  // the first, or the root's turn ended and the tree waits for children) they wait in the inbox
  // and, like a notification, start the next phase as (part of) its prompt.
  const route = (command: QueuedCommand): boolean => {
    if (!inbox.dispatch({ type: 'submit', command }).accepted) return false;
    if (host.current?.submit(command)) return true;
    inbox.dispatch({ type: 'wait', command });
    outOfPhase$.next(lifecycleOf(host, command.id, 'queued'));
    arrivals$.next();
    return true;
  };
  const received$ = options.input$ ? readSubmissions(options.input$, options.inputAcks, route) : EMPTY;

  /** The tree's terminal: input closes and every submission not taken is reported discarded. */
  const closeWith = (end: PhaseEnd, reason?: TerminalEvent['reason']): Observable<LoopEvent> => {
    const { commands } = inbox.dispatch({ type: 'close' });
    const terminal = treeTerminal(end.terminal, end.totals, { costUsd: budget.subtreeUsd(), durationMs: now() - startedAt }, reason);
    return from([...commands.map((c) => lifecycleOf(host, c.id, 'discarded')), terminal]);
  };

  /** The next phase's start: every undelivered notification and waiting command as its prompt. */
  const nextPhase = (end: PhaseEnd): PhaseStart => {
    const { notices, commands } = inbox.dispatch({ type: 'take', into: 'prompt' });
    const prompt: MessageParam = {
      role: 'user',
      content: [...notices.map((n) => ({ type: 'text' as const, text: n.text })), ...commands.flatMap((c) => c.content)],
    };
    return { type: 'phase_start', first: false, messages: end.terminal.messages ?? [], prompt, commands, totals: end.totals };
  };

  /** After a phase: the tree's terminal, or (waiting for background children) the next phase. */
  const afterPhase = (end: PhaseEnd): Observable<LoopEvent | PhaseStep> => {
    const config = { waitForBackground: agents.waitForBackground ?? true, maxTurns: options.maxTurns, aborted: controller.signal.aborted };
    if (!shouldWait(inbox.state(), { reason: end.terminal.reason, turns: end.totals.turns }, config)) return closeWith(end);
    inbox.dispatch({ type: 'hand_on' });
    const ready$ = hasInput(inbox.state()) ? of('ready' as const) : arrivals$.pipe(take(1), map(() => 'ready' as const));
    return race(ready$, fromAbortSignal(controller.signal).pipe(map(() => 'aborted' as const))).pipe(
      take(1),
      // A child cut by the same abort may have delivered first: the abort still wins.
      mergeMap((why) => (why === 'aborted' || controller.signal.aborted ? closeWith(end, 'aborted_tools') : of(nextPhase(end)))),
    );
  };

  const first: PhaseStart = {
    type: 'phase_start',
    first: true,
    ...(options.messages ? { messages: options.messages } : {}),
    ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
    commands: [],
    totals: NO_TOTALS,
  };
  const phases$ = expandSteps<LoopEvent, PhaseStep>(of(first), (step) => (step.type === 'phase_start' ? runPhase(host, step) : afterPhase(step)), isPhaseStep);

  const done$ = new Subject<void>();
  return merge(
    // Background children live as long as the tree; they are cut right after its terminal.
    background.events$.pipe(takeUntil(done$)),
    outOfPhase$.pipe(takeUntil(done$)),
    // After outOfPhase$: submissions made before the start are reported queued through it.
    received$.pipe(takeUntil(done$)),
    phases$.pipe(finalize(() => done$.next())),
  ).pipe(
    finalize(() => {
      options.signal?.removeEventListener('abort', onAbort);
      controller.abort();
    }),
  );
}
