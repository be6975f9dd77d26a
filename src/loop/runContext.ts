/**
 * Per-run wiring shared by all iterations of one `agentLoop` subscription: resolved options,
 * injected dependencies, the abort bridge, the input queue and the pending transcript records.
 * Created inside `defer`, so every subscription gets its own (the loop stays cold).
 */
import { filter, map, Observable, queueScheduler, Subject, type SchedulerLike } from 'rxjs';
import { fromAbortSignal } from '../../operators/internal/fromAbortSignal.js';
import { randomUUID } from 'node:crypto';
import { ConfigurationError } from '../errors.js';
import type { TextBlock } from '../protocol/content.js';
import type { MessagesRequest } from '../protocol/request.js';
import type { Tool } from '../tools/types.js';
import { scheduleTools as defaultScheduleTools } from '../../operators/scheduleTools.js';
import type { DecideConfig } from './decision.js';
import { createCostBudget, DEFAULT_PRICES, type CostBudget, type PriceTable } from './pricing.js';
import { passThroughGovernor, type ContextGovernor, type TranscriptRecord, type TranscriptSink } from './seams.js';
import {
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_REPEATED_TOOL_CALL_LIMIT,
  type AgentLoopOptions,
  type CallModel,
  type ToolSchedulerFactory,
} from './options.js';
import type { CommandStatus } from './types.js';

/** Why the run was aborted: by the caller's signal (interrupts are per iteration, see `interrupt$`). */
export type AbortCause = 'signal';

export interface QueuedCommand {
  readonly id: string;
  readonly content: readonly TextBlock[];
  readonly interrupt: boolean;
}

export interface RunContext {
  readonly options: AgentLoopOptions;
  /** Query tracking of this run: `chainId` fixed, `depth` of the current iteration. */
  readonly chainId: string;
  depth: number;
  readonly callModel: CallModel;
  readonly scheduleTools: ToolSchedulerFactory;
  readonly governor: ContextGovernor;
  readonly transcript: TranscriptSink | undefined;
  readonly budget: CostBudget | undefined;
  readonly prices: PriceTable;
  readonly newId: () => string;
  readonly now: () => number;
  readonly scheduler: SchedulerLike;
  readonly startedAt: number;
  readonly maxOutputTokens: number;
  readonly repeatedToolCallLimit: number;
  readonly decideConfig: DecideConfig;
  /** Aborted by the caller's signal, an interrupt, or teardown: tools and hooks listen to it. */
  readonly signal: AbortSignal;
  /** Emits when an abort that must still produce a terminal happens (signal or interrupt). */
  readonly abort$: Observable<AbortCause>;
  abortCause(): AbortCause | undefined;
  /**
   * Fires when an interrupting submission cancels the current iteration (only while it is
   * interruptible: streaming, or every running tool is 'cancel'). The run goes on with the input.
   */
  readonly interrupt$: Subject<void>;
  /** Kept up to date by the tool scheduler of the current iteration. */
  interruptible: boolean;
  /** Records waiting for the next `transcript.append` (awaited before each model request). */
  readonly pendingTranscript: TranscriptRecord[];
  /** Submitted input not yet absorbed, in order. */
  readonly queue: QueuedCommand[];
  /**
   * Set when the terminal is about to be delivered: the queue has just been settled, so later
   * submissions are refused (`accepted: false`) instead of being queued and never answered.
   */
  inputClosed: boolean;
  /** Absorbed commands whose consuming turn has not ended yet; `seen` once a request carried them. */
  readonly started: { readonly id: string; seen: boolean }[];
  /** Lifecycle events produced outside an iteration (e.g. `queued`), drained into the output. */
  readonly lifecycle$: Observable<{ readonly id: string; readonly status: CommandStatus }>;
  reportLifecycle(id: string, status: CommandStatus): void;
  dispose(): void;
}

/** The parts of the request that do not change between iterations, computed once per run. */
export function buildRequestBase(options: AgentLoopOptions, maxOutputTokens: number, tools: readonly Tool[] = options.tools ?? []): MessagesRequest {
  return {
    model: options.model,
    messages: [],
    max_tokens: maxOutputTokens,
    ...(options.system !== undefined ? { system: options.system } : {}),
    ...(tools.length > 0
      ? { tools: tools.map((t) => ({ name: t.name, description: t.description, input_schema: t.jsonSchema })) }
      : {}),
    ...(options.thinking ? { thinking: options.thinking } : {}),
    stream: true,
  };
}

export function createRunContext(options: AgentLoopOptions): RunContext {
  const deps = options.deps ?? {};
  const client = options.client;
  const callModel: CallModel | undefined =
    deps.callModel ?? (client ? (request, callOptions) => client.stream(request, callOptions) : undefined);
  if (!callModel) throw new ConfigurationError('agentLoop needs `client` or `deps.callModel`');
  const scheduler = deps.scheduler ?? queueScheduler;
  const now = deps.now ?? (() => scheduler.now());
  const newId = deps.uuid ?? randomUUID;
  const budget = options.budget ?? (options.maxBudgetUsd !== undefined ? createCostBudget(options.maxBudgetUsd) : undefined);

  const controller = new AbortController();
  let cause: AbortCause | undefined;
  const abortWith = (c: AbortCause) => {
    if (controller.signal.aborted) return;
    cause = c;
    controller.abort();
  };
  const onSignal = () => abortWith('signal');
  if (options.signal?.aborted) abortWith('signal');
  else options.signal?.addEventListener('abort', onSignal, { once: true });

  // Only an abort with a cause (the caller's signal) reaches the loop; teardown aborts silently.
  const abort$ = fromAbortSignal(controller.signal).pipe(
    filter(() => cause !== undefined),
    map(() => cause as AbortCause),
  );

  const lifecycleListeners = new Set<(e: { id: string; status: CommandStatus }) => void>();
  const lifecycle$ = new Observable<{ readonly id: string; readonly status: CommandStatus }>((subscriber) => {
    const listener = (e: { id: string; status: CommandStatus }) => subscriber.next(e);
    lifecycleListeners.add(listener);
    return () => lifecycleListeners.delete(listener);
  });

  const hooks = options.hooks;
  return {
    options,
    chainId: options.chainId ?? newId(),
    depth: options.depth ?? 0,
    callModel,
    scheduleTools: deps.scheduleTools ?? ((input) => defaultScheduleTools(input)),
    governor: options.contextGovernor ?? passThroughGovernor,
    transcript: options.transcript,
    budget,
    prices: options.prices ?? DEFAULT_PRICES,
    newId,
    now,
    scheduler,
    startedAt: now(),
    maxOutputTokens: options.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS,
    repeatedToolCallLimit: options.repeatedToolCallLimit ?? DEFAULT_REPEATED_TOOL_CALL_LIMIT,
    decideConfig: {
      maxTurns: options.maxTurns ?? Infinity,
      hasStopHook: hooks?.stop !== undefined,
      hasPostToolBatchHook: hooks?.postToolBatch !== undefined,
      tokenBudget: options.tokenBudget,
      isSubagent: options.isSubagent ?? false,
      newId,
    },
    signal: controller.signal,
    abort$,
    abortCause: () => cause,
    interrupt$: new Subject<void>(),
    interruptible: true,
    pendingTranscript: [],
    queue: [],
    inputClosed: false,
    started: [],
    lifecycle$,
    reportLifecycle: (id, status) => lifecycleListeners.forEach((l) => l({ id, status })),
    dispose: () => {
      options.signal?.removeEventListener('abort', onSignal);
      // Teardown (plain unsubscribe) aborts whatever still listens; no terminal can follow.
      if (!controller.signal.aborted) controller.abort();
      lifecycleListeners.clear();
    },
  };
}
