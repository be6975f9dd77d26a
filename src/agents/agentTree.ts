/**
 * `agentLoopWithSubagents`: an `agentLoop` whose model can start subagents through the `Agent`
 * tool. A subagent is not a special case inside the loop: it is another agent tree (so it may
 * have subagents of its own, down to `maxDepth`) with its own messages, tools, permission
 * policy, abort and transcript, composed into the parent like any other Observable:
 *
 * - foreground children run inside the Agent tool's call (unsubscribing the call cancels them);
 * - background children are merged into this tree's output, so they live exactly as long as
 *   the tree: when it ends or is unsubscribed they are cut, and aborting `signal` aborts them.
 *
 * A background child's final message is pushed into the parent loop's input queue (the
 * `RunContext.queue` the loop absorbs after a tool batch, SPEC §2 step 1 / §9). If the parent's
 * turn ends (`completed`) while children still run or notifications are still undelivered,
 * the tree waits for the next notification and continues the conversation with it as the next
 * user message — a new phase of the same run (same `chainId`); the consumer still sees exactly
 * one terminal, with the phases' turns and usage summed and the cost of the whole subtree.
 *
 * ```
 * parent:  -i-a-s(r: launched id1)-T-i-a-(T: completed)       T of phase 1 is held back
 * child1:       --i-m-a-(T: completed) ------>|               its answer is queued
 * output:  -i-a-s-r-t-i-a---p-p-p-p----i-a-(T|)               p = tool_progress of child1
 *                                       ^ phase 2: notification as the prompt
 * ```
 */
import { randomUUID } from 'node:crypto';
import {
  defer,
  EMPTY,
  finalize,
  map,
  merge,
  mergeMap,
  Observable,
  of,
  queueScheduler,
  race,
  Subject,
  take,
  takeUntil,
  catchError,
  concat,
  from,
  ignoreElements,
  tap,
} from 'rxjs';
import { fromAbortSignal } from '../../operators/internal/fromAbortSignal.js';
import { ConfigurationError, SubagentLimitError } from '../errors.js';
import { loopOf } from '../loop/agentLoop.js';
import { withMcpServers } from '../mcp/withMcpServers.js';
import type { AgentLoopHooks, AgentLoopOptions, CallModel } from '../loop/options.js';
import { addUsage, createCostBudget, ZERO_USAGE } from '../loop/pricing.js';
import { createRunContext, type RunContext } from '../loop/runContext.js';
import { commandOf, type QueuedCommand } from '../loop/runInput.js';
import type { LoopHooks, TranscriptSink } from '../loop/seams.js';
import type { CommandStatus, LoopEvent, QueryTracking, TerminalEvent, UsageTotals } from '../loop/types.js';
import type { MessageParam } from '../protocol/content.js';
import type { CanUseTool } from '../tools/hooks.js';
import type { Tool } from '../tools/types.js';
import { AGENT_TOOL_NAME, childOutcome, createAgentTool, renderAgentOutput, type AgentToolInput, type StartedChild, type SubagentLauncher } from './agentTool.js';
import { mergeAgentDefinitions, type AgentDefinition } from './definitions.js';
import type { SubagentEventData } from './events.js';
import { childOptions } from './childOptions.js';
import { notificationText } from './texts.js';
import { createTreeBudget } from './treeBudget.js';
import { createSubagentSlots, type SubagentSlot, type SubagentSlots } from './subagentSlots.js';

export const DEFAULT_MAX_AGENT_DEPTH = 2;

/** Who a subagent is, for the factories below. */
export interface SubagentInfo {
  readonly agentId: string;
  readonly agentType: string;
  /** 1 for a child of the top-level loop. */
  readonly agentDepth: number;
  readonly parentToolUseId: string;
  readonly background: boolean;
  readonly description: string;
}

export interface SubagentOptions {
  /** Added to (and replacing by name) the built-in `general-purpose` definition. */
  readonly definitions?: readonly AgentDefinition[];
  /**
   * The deepest subagent level: children are level 1, grandchildren 2. A loop at this level
   * gets no Agent tool. Default 2; 0 disables subagents.
   */
  readonly maxDepth?: number;
  /**
   * The most subagents running at once in the whole tree (grandchildren included). An Agent call
   * over it gets an error result (a `SubagentLimitError`'s text) and the run goes on. Default 10.
   */
  readonly maxConcurrent?: number;
  /** The most subagents started in one run of the whole tree; over it, as `maxConcurrent`. Default 50. */
  readonly maxPerRun?: number;
  /** When the parent's turn completes while background children run, wait for them. Default true. */
  readonly waitForBackground?: boolean;
  /**
   * The tools a child chooses from (its definition's `tools` filter them). Default: the parent's
   * own tools. Give fresh instances here for per-child state (e.g. a read tracker per child).
   */
  readonly toolsFor?: (child: SubagentInfo, definition: AgentDefinition) => readonly Tool[];
  /** The child's permission policy (e.g. from `definition.permissionMode`). Default: the parent's. */
  readonly canUseToolFor?: (child: SubagentInfo, definition: AgentDefinition) => CanUseTool | undefined;
  /** Where the child's transcript goes. Default: none. */
  readonly transcriptFor?: (child: SubagentInfo, definition: AgentDefinition) => TranscriptSink | undefined;
  /**
   * Loop hooks of the child's own turn (e.g. the command's SubagentStart as its UserPromptSubmit,
   * SubagentStop as its Stop), added to the parent's tool hooks. Default: none.
   */
  readonly hooksFor?: (child: SubagentInfo, definition: AgentDefinition) => LoopHooks | undefined;
  /** Maps a definition's model (e.g. an alias like 'haiku') to a model id. Default: as written. */
  readonly resolveModel?: (model: string) => string;
  /** Default 'Agent'. */
  readonly toolName?: string;
  /** Default: 'agent-' + 8 hex digits. */
  readonly newAgentId?: () => string;
}

export interface AgentTreeOptions extends AgentLoopOptions {
  readonly agents?: SubagentOptions;
}

interface NodeConfig {
  /** 0 for the top-level loop. */
  readonly depth: number;
  readonly definitions: ReadonlyMap<string, AgentDefinition>;
  /** False when the definition's tool list leaves the Agent tool out. */
  readonly agentToolAllowed: boolean;
  /** The tree's subagent caps: one counter for every node. */
  readonly slots: SubagentSlots;
}

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
  return treeNode(
    options,
    {
      depth: 0,
      definitions: mergeAgentDefinitions(options.agents?.definitions ?? []),
      agentToolAllowed: true,
      slots: createSubagentSlots({
        ...(options.agents?.maxConcurrent !== undefined ? { maxConcurrent: options.agents.maxConcurrent } : {}),
        ...(options.agents?.maxPerRun !== undefined ? { maxPerRun: options.agents.maxPerRun } : {}),
      }),
    },
  );
}

interface Notice {
  readonly id: string;
  readonly text: string;
}

interface Totals {
  readonly turns: number;
  readonly usage: UsageTotals;
  readonly lastText: string | undefined;
}

function treeNode(options: AgentTreeOptions, node: NodeConfig): Observable<LoopEvent> {
  const { agents: agentOptions, ...loopOptions } = options;
  const agents = agentOptions ?? {};
  const maxDepth = agents.maxDepth ?? DEFAULT_MAX_AGENT_DEPTH;
  const toolName = agents.toolName ?? AGENT_TOOL_NAME;
  const baseTools = options.tools ?? [];
  if (baseTools.some((t) => t.name === toolName)) {
    throw new ConfigurationError(`a tool named ${toolName} is already in \`tools\`; the agent tree adds its own`);
  }
  const budget = createTreeBudget(options.budget ?? (options.maxBudgetUsd !== undefined ? createCostBudget(options.maxBudgetUsd) : undefined));
  const now = options.deps?.now ?? (() => (options.deps?.scheduler ?? queueScheduler).now());
  const startedAt = now();
  const newId = options.deps?.uuid ?? randomUUID;
  const newAgentId = agents.newAgentId ?? (() => `agent-${randomUUID().replace(/-/g, '').slice(0, 8)}`);
  const chainId = options.chainId ?? newId();
  const baseCallModel: CallModel | undefined =
    options.deps?.callModel ?? (options.client ? (request, callOptions) => options.client!.stream(request, callOptions) : undefined);

  // Aborting the caller's signal aborts this loop and every child; so does the end of the tree.
  const controller = new AbortController();
  const onAbort = () => controller.abort();
  if (options.signal?.aborted) controller.abort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });

  const background$ = new Subject<Observable<LoopEvent>>();
  const arrivals$ = new Subject<void>();
  /** Notifications not yet absorbed by the parent, in completion order. */
  const undelivered: Notice[] = [];
  const noticeIds = new Set<string>();
  let noticeCount = 0;
  /** The input queue of the running phase; undefined between phases. */
  let current: RunContext | undefined;
  let running = 0;
  let tracking: QueryTracking = { chainId, depth: 0 };

  // Submissions (`input$`, read by the root only: children are built without it). While a phase
  // runs they go into its loop's input, exactly as with `createAgentRun`. Between phases (before
  // the first, or the root's turn ended and the tree waits for children) they wait in `inbox`
  // and, like a notification, start the next phase as (part of) its prompt.
  const inbox: QueuedCommand[] = [];
  /** User commands not yet absorbed, by id: a phase that discards them may hand them on. */
  const unabsorbed = new Map<string, QueuedCommand>();
  /** Discarded by the phase that just ended; carried into the next phase if there is one. */
  const held: QueuedCommand[] = [];
  /** Set once the tree's own terminal is decided: later submissions are refused. */
  let closed = false;
  const outOfPhase$ = new Subject<LoopEvent>();
  const lifecycleOf = (id: string, status: CommandStatus): LoopEvent => ({ type: 'command_lifecycle', id, status, ...tracking });
  const route = (command: QueuedCommand): boolean => {
    if (closed) return false;
    unabsorbed.set(command.id, command);
    const ctx = current;
    if (ctx?.input.submit(command)) return true;
    inbox.push(command);
    outOfPhase$.next(lifecycleOf(command.id, 'queued'));
    arrivals$.next();
    return true;
  };
  const input$ = options.input$;
  const acks = options.inputAcks;
  const received$: Observable<never> = input$
    ? input$.pipe(
        tap((submission) => acks?.next({ id: submission.id, accepted: route(commandOf(submission)) })),
        ignoreElements(),
      )
    : EMPTY;

  const deliver = (text: string): void => {
    const notice: Notice = { id: `${chainId}:notification-${++noticeCount}`, text };
    undelivered.push(notice);
    noticeIds.add(notice.id);
    current?.input.notify({ id: notice.id, content: [{ type: 'text', text }], interrupt: false });
    arrivals$.next();
  };

  /** A child holding `slot`, which it frees however it ends. */
  const startChild = (
    definition: AgentDefinition,
    input: AgentToolInput,
    parentToolUseId: string,
    background: boolean,
    signal: AbortSignal,
    slot: () => SubagentSlot,
  ): StartedChild => {
    const agentId = newAgentId();
    const agentDepth = node.depth + 1;
    const info: SubagentInfo = { agentId, agentType: definition.name, agentDepth, parentToolUseId, background, description: input.description };
    const events$ = defer(() => {
      const held = slot();
      return defer(() => {
        const child = childOptions({ parent: options, definition, input, info, signal, budget, baseCallModel, toolName });
        return treeNode(child.options, { depth: agentDepth, definitions: node.definitions, agentToolAllowed: child.agentToolAllowed, slots: node.slots });
      }).pipe(finalize(() => held.release()));
    });
    return { agentId, agentDepth, events$ };
  };
  /** A slot of the tree's caps, or the SubagentLimitError the Agent call fails with. */
  const acquireSlot = (): SubagentSlot => {
    const slot = node.slots.acquire();
    if (slot instanceof SubagentLimitError) throw slot;
    return slot;
  };

  const progressOf = (data: SubagentEventData): LoopEvent => ({
    type: 'tool_progress',
    toolUseId: data.parentToolUseId,
    name: toolName,
    data,
    chainId: tracking.chainId,
    depth: tracking.depth,
  });

  const launcher: SubagentLauncher = {
    definitions: node.definitions,
    // A foreground child takes its slot when its call subscribes to it (a refusal errors the call).
    foreground: (definition, input, parentToolUseId, signal) => startChild(definition, input, parentToolUseId, false, signal, acquireSlot),
    background: (definition, input, parentToolUseId, callSignal) => {
      // Taken now, so a refused launch throws here and the call's result is the error, not "launched".
      const slot = acquireSlot();
      const child = startChild(definition, input, parentToolUseId, true, controller.signal, () => slot);
      // A launching call stopped before its result reached the model (max_tokens, interrupt,
      // abort) was reported to the model as stopped; cutting the child keeps that true (no late
      // notification of work the model believes stopped). The signal never aborts afterwards.
      const callStopped$ = callSignal ? fromAbortSignal(callSignal) : EMPTY;
      running++;
      let settled = false;
      const settle = (ok: boolean, body: string): void => {
        if (settled) return;
        settled = true;
        running--;
        // Freed before the notification, which may start the parent's next phase (and its calls).
        slot.release();
        deliver(notificationText({ agentId: child.agentId, agentType: definition.name, description: input.description, ok, body }));
      };
      const wrap = (event: LoopEvent): SubagentEventData => ({
        type: 'subagent_event',
        agentId: child.agentId,
        agentType: definition.name,
        agentDepth: child.agentDepth,
        parentToolUseId,
        background: true,
        event,
      });
      background$.next(
        child.events$.pipe(
          takeUntil(callStopped$),
          mergeMap((event) => {
            const progress = of(progressOf(wrap(event)));
            if (event.type !== 'terminal') return progress;
            // The child's terminal is reported first, then its notification is queued (which may
            // start the parent's next phase synchronously).
            return concat(
              progress,
              defer(() => {
                const outcome = childOutcome({ agentId: child.agentId, agentType: definition.name, terminal: event, costUsd: event.costUsd });
                settle(outcome.ok, outcome.ok ? renderAgentOutput(outcome.output) : outcome.text);
                return EMPTY;
              }),
            );
          }),
          // A child that cannot even start is a failure notification, never the tree's error.
          catchError((error: unknown) => {
            settle(false, `subagent ${child.agentId} (${definition.name}) could not run: ${error instanceof Error ? error.message : String(error)}`);
            return EMPTY;
          }),
          finalize(() => {
            // Cut when the tree ended or its call was stopped: nothing to deliver any more.
            if (!settled) {
              settled = true;
              running--;
            }
          }),
        ),
      );
      return child.agentId;
    },
  };

  const agentTool = node.depth < maxDepth && node.agentToolAllowed ? createAgentTool(launcher, toolName) : undefined;
  const tools = agentTool ? [...baseTools, agentTool] : baseTools;

  const finalTerminal = (event: TerminalEvent, totals: Totals, reason: TerminalEvent['reason'] = event.reason): LoopEvent => {
    const { lastAssistantText: _last, ...rest } = event;
    return {
      ...rest,
      reason,
      turnCount: totals.turns,
      usage: totals.usage,
      costUsd: budget.subtreeUsd(),
      durationMs: now() - startedAt,
      ...(totals.lastText !== undefined ? { lastAssistantText: totals.lastText } : {}),
    };
  };

  const runPhase = (
    start: {
      readonly messages?: readonly MessageParam[];
      readonly prompt?: string | MessageParam;
      /** Submissions that are part of `prompt` (reported `started` now, settled at the phase's end). */
      readonly commands?: readonly QueuedCommand[];
    },
    totals: Totals,
    first: boolean,
  ): Observable<LoopEvent> =>
    defer(() => {
      const hooks = first ? options.hooks : withoutPromptHook(options.hooks);
      const remaining = options.maxTurns === undefined ? undefined : options.maxTurns - totals.turns;
      const { maxTurns: _maxTurns, hooks: _hooks, messages: _messages, prompt: _prompt, input$: _input, inputAcks: _acks, parentUuid, ...rest } = loopOptions;
      const ctx = createRunContext({
        ...rest,
        tools,
        budget,
        chainId,
        signal: controller.signal,
        ...(first && parentUuid !== undefined ? { parentUuid } : {}),
        ...(start.messages ? { messages: start.messages } : {}),
        ...(start.prompt !== undefined ? { prompt: start.prompt } : {}),
        ...(remaining !== undefined ? { maxTurns: remaining } : {}),
        ...(hooks ? { hooks } : {}),
      });
      current = ctx;
      // The first phase absorbs early submissions (already reported queued by the router) like
      // `createAgentRun` does, after the first batch; a later phase carries its submissions in
      // its prompt, already started.
      if (first) for (const c of inbox.splice(0)) ctx.input.notify(c);
      const commands = start.commands ?? [];
      for (const c of commands) unabsorbed.delete(c.id);
      ctx.input.adopt(commands.map((c) => c.id));
      const lifecycle$ = concat(from(commands.map((c) => lifecycleOf(c.id, 'started'))), ctx.input.lifecycle$);
      return loopOf(ctx, lifecycle$).pipe(
        mergeMap((event): Observable<LoopEvent> => {
          if (event.type === 'command_lifecycle' && noticeIds.has(event.id)) {
            // Our own plumbing: a notification entering the history is seen as its user_message.
            if (event.status === 'started') {
              const i = undelivered.findIndex((n) => n.id === event.id);
              if (i >= 0) undelivered.splice(i, 1);
            }
            return EMPTY;
          }
          if (event.type === 'command_lifecycle') {
            if (event.status === 'started') unabsorbed.delete(event.id);
            const command = event.status === 'discarded' ? unabsorbed.get(event.id) : undefined;
            // Not lost yet: if the tree goes on, the next phase takes it (decided at the terminal).
            if (command) {
              held.push(command);
              return EMPTY;
            }
          }
          tracking = { chainId: event.chainId, depth: event.depth };
          if (event.type !== 'terminal') return of(event);
          current = undefined;
          const next: Totals = {
            turns: totals.turns + event.turnCount,
            usage: sumUsage(totals.usage, event.usage),
            lastText: event.lastAssistantText ?? totals.lastText,
          };
          const wait =
            (agents.waitForBackground ?? true) &&
            event.reason === 'completed' &&
            (running > 0 || undelivered.length > 0) &&
            (options.maxTurns === undefined || next.turns < options.maxTurns) &&
            !controller.signal.aborted;
          if (!wait) return closeWith(finalTerminal(event, next));
          inbox.unshift(...held.splice(0));
          const ready$ = undelivered.length > 0 || inbox.length > 0 ? of('ready' as const) : arrivals$.pipe(take(1), map(() => 'ready' as const));
          return race(ready$, fromAbortSignal(controller.signal).pipe(map(() => 'aborted' as const))).pipe(
            take(1),
            mergeMap((why) => {
              // A child cut by the same abort may have delivered first: the abort still wins.
              if (why === 'aborted' || controller.signal.aborted) return closeWith(finalTerminal(event, next, 'aborted_tools'));
              const notices = undelivered.splice(0);
              const commands = inbox.splice(0);
              const prompt: MessageParam = {
                role: 'user',
                content: [...notices.map((n) => ({ type: 'text' as const, text: n.text })), ...commands.flatMap((c) => c.content)],
              };
              return runPhase({ messages: event.messages ?? [], prompt, commands }, next, false);
            }),
          );
        }),
      );
    });

  /** The tree's terminal: input closes and every submission not taken is reported discarded. */
  const closeWith = (terminal: LoopEvent): Observable<LoopEvent> => {
    closed = true;
    const left = [...held.splice(0), ...inbox.splice(0)];
    return from([...left.map((c) => lifecycleOf(c.id, 'discarded')), terminal]);
  };

  const done$ = new Subject<void>();
  const first = runPhase(
    {
      ...(options.messages ? { messages: options.messages } : {}),
      ...(options.prompt !== undefined ? { prompt: options.prompt } : {}),
    },
    { turns: 0, usage: ZERO_USAGE, lastText: undefined },
    true,
  );
  return merge(
    // Background children live as long as the tree; they are cut right after its terminal.
    background$.pipe(
      mergeMap((child$) => child$),
      takeUntil(done$),
    ),
    outOfPhase$.pipe(takeUntil(done$)),
    // After outOfPhase$: submissions made before the start are reported queued through it.
    received$.pipe(takeUntil(done$)),
    first.pipe(finalize(() => done$.next())),
  ).pipe(
    finalize(() => {
      options.signal?.removeEventListener('abort', onAbort);
      controller.abort();
    }),
  );
}

function withoutPromptHook(hooks: AgentLoopHooks | undefined): AgentLoopHooks | undefined {
  if (!hooks) return undefined;
  const { userPromptSubmit: _skip, ...rest } = hooks;
  return rest;
}

function sumUsage(a: UsageTotals, b: UsageTotals): UsageTotals {
  return addUsage(a, {
    input_tokens: b.inputTokens,
    output_tokens: b.outputTokens,
    cache_creation_input_tokens: b.cacheCreationInputTokens,
    cache_read_input_tokens: b.cacheReadInputTokens,
  });
}
