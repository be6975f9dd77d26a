/**
 * Per-run wiring shared by all iterations of one `agentLoop` subscription: resolved options,
 * injected dependencies (client, scheduler, ids, clock, governor) and the abort bridge. Nothing
 * in it changes while the run goes on: the run's input side is its own value (`RunInput`,
 * handed to the loop beside the context) and the history as last sent travels with each
 * iteration's `Continue`. Created inside `defer`, so every subscription gets its own (the loop
 * stays cold).
 */
import { filter, map, Observable, type SchedulerLike } from 'rxjs';
import { createTrampolineScheduler } from '../../operators/internal/trampolineScheduler.js';
import { fromAbortSignal } from '../../operators/internal/fromAbortSignal.js';
import { randomUUID } from 'node:crypto';
import { ConfigurationError } from '../errors.js';
import type { MessagesRequest } from '../protocol/request.js';
import type { Tool } from '../tools/types.js';
import { scheduleTools as defaultScheduleTools } from '../../operators/scheduleTools.js';
import type { DecideConfig } from './decision.js';
import { createCostBudget, DEFAULT_PRICES, type CostBudget, type PriceTable } from './pricing.js';
import { passThroughGovernor, type ContextGovernor, type TranscriptSink } from './seams.js';
import {
  DEFAULT_MAX_OUTPUT_TOKENS,
  DEFAULT_REPEATED_TOOL_CALL_LIMIT,
  type AgentLoopOptions,
  type CallModel,
  type ToolSchedulerFactory,
} from './options.js';

/** Why the run was aborted: by the caller's signal (interrupts are per iteration, see `interrupt$`). */
export type AbortCause = 'signal';

export interface RunContext {
  readonly options: AgentLoopOptions;
  /** Query tracking of this run: `chainId` fixed (the current depth is in `RunInput.tracking`). */
  readonly chainId: string;
  readonly callModel: CallModel;
  readonly scheduleTools: ToolSchedulerFactory;
  readonly governor: ContextGovernor;
  readonly transcript: TranscriptSink | undefined;
  readonly budget: CostBudget | undefined;
  readonly prices: PriceTable;
  readonly newId: () => string;
  readonly now: () => number;
  /** The trampoline between iterations: a private one unless a test injects its scheduler. */
  readonly scheduler: SchedulerLike;
  readonly startedAt: number;
  readonly maxOutputTokens: number;
  readonly repeatedToolCallLimit: number;
  readonly decideConfig: DecideConfig;
  /** Aborted by the caller's signal, an interrupt, or teardown: tools and hooks listen to it. */
  readonly signal: AbortSignal;
  /** Emits when an abort that must still produce a terminal happens (the caller's signal). */
  readonly abort$: Observable<AbortCause>;
  /**
   * The same abort as state: on subscribe, whether the caller's signal has aborted; then `true`
   * when it does. The decision points compose it (its first value, or `withLatestFrom` across a
   * hook), so each decides on the abort state of its own moment.
   */
  readonly aborted$: Observable<boolean>;
  /** `aborted$`'s first value, read without a subscription (the decision points that take only it). */
  readonly isAborted: () => boolean;
  readonly dispose: () => void;
}

/**
 * The parts of the request that do not change between iterations, computed once per run.
 * `usualRequest` (modelPhase.ts) lists these keys: a key added here goes there too.
 */
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
  const scheduler = deps.scheduler ?? createTrampolineScheduler();
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

  const hooks = options.hooks;
  const chainId = options.chainId ?? newId();
  return {
    options,
    chainId,
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
    aborted$: abortedState(controller.signal, () => cause !== undefined),
    isAborted: () => cause !== undefined,
    dispose: () => {
      options.signal?.removeEventListener('abort', onSignal);
      // Teardown (plain unsubscribe) aborts whatever still listens; no terminal can follow.
      if (!controller.signal.aborted) controller.abort();
    },
  };
}

/**
 * `aborted$` (see RunContext): the state now on subscribe, then `true` once the signal aborts
 * with a cause; an abort without one (teardown) completes it silently. One Observable per run
 * and one listener per subscriber: it is subscribed at every decision point of every iteration,
 * where `concat(of(false), abort$.pipe(map(...)))` built five subscribers each time.
 */
function abortedState(signal: AbortSignal, hasCause: () => boolean): Observable<boolean> {
  return new Observable<boolean>((subscriber) => {
    if (hasCause()) {
      subscriber.next(true);
      subscriber.complete();
      return undefined;
    }
    subscriber.next(false);
    if (signal.aborted) subscriber.complete();
    if (subscriber.closed) return undefined; // taken its first value, or torn down
    const onAbort = (): void => {
      if (hasCause()) subscriber.next(true);
      subscriber.complete();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
  });
}
