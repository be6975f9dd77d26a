/**
 * One phase of an agent tree node: one `agentLoop` run (`loopOf`) of the node's conversation.
 * The first phase starts from the caller's prompt; each later one from the notifications and
 * submissions that arrived while the node waited for its background children (agentTree.ts
 * decides whether to wait, and `expand`s phase after phase).
 *
 * A phase's events pass through unchanged except two kinds, which the tree consumes:
 * - its terminal becomes a `PhaseEnd` (the tree decides what the consumer's terminal is);
 * - lifecycle events that are the tree's plumbing (a notification's, a command the tree hands
 *   on to the next phase) are dropped, as the node's inbox says (treeInbox.ts).
 *
 * ```
 * start:   S                          S = PhaseStart (prompt, commands, totals so far)
 * loop:    -i-a-t-i-a-(T|)
 * phase:   -i-a-t-i-a-(E|)            E = PhaseEnd { terminal: T, totals + T }
 * ```
 */
import { concat, defer, filter, from, map, type Observable } from 'rxjs';
import { loopOf } from '../loop/agentLoop.js';
import type { AgentLoopHooks, AgentLoopOptions } from '../loop/options.js';
import { createRunContext } from '../loop/runContext.js';
import { createRunInput, type QueuedCommand, type RunInput } from '../loop/runInput.js';
import type { CommandStatus, LoopEvent, QueryTracking, TerminalEvent } from '../loop/types.js';
import type { MessageParam } from '../protocol/content.js';
import type { Tool } from '../tools/types.js';
import type { TreeBudget } from './treeBudget.js';
import type { TreeInboxHolder } from './treeInbox.js';
import type { AgentTreeOptions } from './treeOptions.js';
import { addPhase, type Totals } from './treeTotals.js';

export interface PhaseStart {
  readonly type: 'phase_start';
  readonly first: boolean;
  readonly messages?: readonly MessageParam[];
  readonly prompt?: string | MessageParam;
  /** Submissions that are part of `prompt` (reported `started` now, settled at the phase's end). */
  readonly commands: readonly QueuedCommand[];
  /** The earlier phases' totals. */
  readonly totals: Totals;
}

export interface PhaseEnd {
  readonly type: 'phase_end';
  readonly terminal: TerminalEvent;
  /** Including this phase. */
  readonly totals: Totals;
}

/** What a node's phases share: its fixed parts, and the two cells its router reads. */
export interface PhaseHost {
  readonly options: AgentTreeOptions;
  readonly tools: readonly Tool[];
  readonly budget: TreeBudget;
  readonly chainId: string;
  /** The node's abort: the caller's signal or the node's end. */
  readonly signal: AbortSignal;
  readonly inbox: TreeInboxHolder;
  /** The running phase's input (submissions and notifications go there); undefined between phases. */
  current: RunInput | undefined;
  /** The running phase's last tracking, for events the node makes itself. */
  tracking: QueryTracking;
}

/** The loop options of one phase (pure): the node's options, with this phase's start. */
export function phaseLoopOptions(host: Pick<PhaseHost, 'options' | 'tools' | 'budget' | 'chainId' | 'signal'>, start: PhaseStart): AgentLoopOptions {
  const { agents: _agents, maxTurns, hooks, messages: _messages, prompt: _prompt, input$: _input, inputAcks: _acks, parentUuid, ...rest } = host.options;
  // A later phase's prompt is the tree's own (notifications): no UserPromptSubmit for it.
  const phaseHooks = start.first ? hooks : withoutPromptHook(hooks);
  // The turn limit is the node's: later phases get what the earlier ones left.
  const remaining = maxTurns === undefined ? undefined : maxTurns - start.totals.turns;
  return {
    ...rest,
    tools: host.tools,
    budget: host.budget,
    chainId: host.chainId,
    signal: host.signal,
    ...(start.first && parentUuid !== undefined ? { parentUuid } : {}),
    ...(start.messages ? { messages: start.messages } : {}),
    ...(start.prompt !== undefined ? { prompt: start.prompt } : {}),
    ...(remaining !== undefined ? { maxTurns: remaining } : {}),
    ...(phaseHooks ? { hooks: phaseHooks } : {}),
  };
}

/** A node's own `command_lifecycle` event, tracked as its running phase. */
export function lifecycleOf(host: PhaseHost, id: string, status: CommandStatus): LoopEvent {
  return { type: 'command_lifecycle', id, status, ...host.tracking };
}

/** Runs one phase (see the file comment). */
export function runPhase(host: PhaseHost, start: PhaseStart): Observable<LoopEvent | PhaseEnd> {
  return defer(() => {
    const options = phaseLoopOptions(host, start);
    const ctx = createRunContext(options);
    const input = createRunInput({ chainId: ctx.chainId, depth: options.depth ?? 0 });
    host.current = input;
    // The first phase absorbs early submissions (already reported queued by the router) like
    // `createAgentRun` does, after the first batch; a later phase carries its submissions in
    // its prompt, already started.
    if (start.first) for (const c of host.inbox.dispatch({ type: 'take', into: 'queue' }).commands) input.notify(c);
    input.adopt(start.commands.map((c) => c.id));
    const lifecycle$ = concat(from(start.commands.map((c) => lifecycleOf(host, c.id, 'started'))), input.lifecycle$);
    return loopOf(ctx, input, lifecycle$).pipe(
      filter((event) => event.type !== 'command_lifecycle' || !host.inbox.dispatch({ type: 'lifecycle', id: event.id, status: event.status }).hidden),
      map((event): LoopEvent | PhaseEnd => {
        host.tracking = { chainId: event.chainId, depth: event.depth };
        if (event.type !== 'terminal') return event;
        host.current = undefined;
        return { type: 'phase_end', terminal: event, totals: addPhase(start.totals, event) };
      }),
    );
  });
}

function withoutPromptHook(hooks: AgentLoopHooks | undefined): AgentLoopHooks | undefined {
  if (!hooks) return undefined;
  const { userPromptSubmit: _skip, ...rest } = hooks;
  return rest;
}
