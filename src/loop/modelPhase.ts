/**
 * The model phase of one iteration, the card's pipeline:
 * `callModel → assembleBlocks → interleaveTools(scheduleTools) → fold → fallback →
 * withholdRecoverable(reactive compaction)`, cut short by an abort or an interrupt. Emits the
 * attempt's events (and a `Continue` when reactive compaction takes over); leaves its ending in
 * the log for the decision.
 */
import { catchError, concat, defer, EMPTY, filter, from, mergeMap, Observable, take, takeUntil, throwError } from 'rxjs';
import { assembleBlocks } from '../../operators/assembleBlocks.js';
import { foldEach } from '../../operators/internal/foldEach.js';
import { interleaveTools } from '../../operators/interleaveTools.js';
import { withholdRecoverable } from '../../operators/withholdRecoverable.js';
import type { AssemblyOutput } from '../assembly/types.js';
import type { MessageParam, ToolUseBlock } from '../protocol/content.js';
import type { MessagesRequest } from '../protocol/request.js';
import type { Tool, ToolEvent } from '../tools/types.js';
import { isOverloaded, isPromptTooLong } from './decideOnError.js';
import { continueWith, eventOf, transitionEvent, warningEvent, type EventSink, type IterationOutput } from './events.js';
import { foldAttempt, isPassThrough, newAttempt, passThroughEvent, repeatVerdict, type Attempt, type FoldEnv, type FoldInput } from './foldAttempt.js';
import type { IterationLog } from './iterationLog.js';
import { stripThinking } from './messages.js';
import { boundaryRecord, governorInput, noticeEvents } from './preflight.js';
import { buildRequestBase, type RunContext } from './runContext.js';
import type { RunInput } from './runInput.js';
import { prepareHistory } from './sentHistory.js';
import { shapeRequest } from './shapeRequest.js';
import { stateWith } from './stateWith.js';
import { reactiveCompactRetry } from './transitions.js';
import type { LoopEvent, LoopState } from './types.js';

/**
 * `tools`: this iteration's tool set (the `refreshTools` seam's answer, else `options.tools`).
 * The events of the response and its tools go to `emit` as the fold makes them; the returned
 * stream carries the rare rest (a fallback's notices, reactive compaction's events and
 * `Continue`) and the phase's end.
 */
export function modelPhase(ctx: RunContext, input: RunInput, log: IterationLog, tools: readonly Tool[], emit: EventSink): Observable<IterationOutput> {
  return defer(() => {
    const initial = log.latest.state;
    const stop$ = stopOf(ctx, input, log);
    const fallback = ctx.options.fallbackModel;
    const attempt$ = callOnce(ctx, input, log, tools, initial, log.sent, emit);
    // Without a fallback model of its own the stage could only rethrow: not subscribed.
    const called$ = !fallback || fallback === initial.model ? attempt$ : attempt$.pipe(
      catchError((error: unknown) => {
        if (!isOverloaded(error)) return throwError(() => error);
        // The failed attempt's message is void: consumers remove it; thinking is model-bound.
        const failed = log.latest.messageUuid;
        const state = stateWith(log.latest.state);
        state.model = fallback;
        state.messages = stripThinking(state.messages);
        const notice = [
          ...(failed ? [eventOf(state, { type: 'tombstone', uuids: [failed] })] : []),
          warningEvent(state, `model ${initial.model} is overloaded; switching to ${fallback}`, 'model_fallback'),
        ];
        return concat(from(notice), callOnce(ctx, input, log, tools, state, state.messages, emit));
      }),
    );
    return called$.pipe(
      withholdRecoverable<IterationOutput>({
        isRecoverable: isPromptTooLong,
        recover: (error) => {
          const recovery = reactiveCompact(ctx, log, error);
          if (recovery) log.recovered = true;
          return recovery;
        },
      }),
      catchError((error: unknown) => {
        log.recovered = false;
        log.error = { error };
        return EMPTY;
      }),
      takeUntil(stop$),
    );
  });
}

/**
 * Fires when the caller aborts (`ctx.abort$`) or an interrupt cuts the iteration (noted in the
 * log), like `merge(ctx.abort$, input.interrupt$.pipe(tap(...)))`: one subscriber and one
 * listener instead of the seven that composition subscribes on every iteration.
 */
function stopOf(ctx: RunContext, input: RunInput, log: IterationLog): Observable<void> {
  return new Observable<void>((subscriber) => {
    const signal = ctx.signal;
    // An abort without a cause (teardown) stops nothing: no terminal may follow it.
    const onAbort = (): void => {
      if (ctx.isAborted()) subscriber.next();
    };
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    if (subscriber.closed) return () => signal.removeEventListener('abort', onAbort);
    const interrupts = input.interrupt$.subscribe(() => {
      log.interrupted = true;
      subscriber.next();
    });
    return () => {
      signal.removeEventListener('abort', onAbort);
      interrupts.unsubscribe();
    };
  });
}

/**
 * One model attempt with its tools, folded: each stream or tool event becomes its loop events,
 * handed to `emit` in its frame. Emits nothing itself; ends as the attempt ends.
 */
function callOnce(ctx: RunContext, input: RunInput, log: IterationLog, tools: readonly Tool[], state: LoopState, messages: readonly MessageParam[], emit: EventSink): Observable<never> {
  return defer(() => {
    log.latest = newAttempt(state);
    input.setInterruptible(true);
    input.markSeen();
    const env: FoldEnv = { newId: ctx.newId, prices: ctx.prices, repeatedToolCallLimit: ctx.repeatedToolCallLimit, interactive: ctx.options.interactive === true, budgeted: ctx.budget !== undefined };
    const scheduler = (response$: Observable<AssemblyOutput>) =>
      response$.pipe(
        withoutRepeats(state.repeatedCall, ctx.repeatedToolCallLimit),
        ctx.scheduleTools({
          tools,
          shared: state.shared,
          hooks: ctx.options.hooks,
          canUseTool: ctx.options.canUseTool,
          onInterruptibleChange: (interruptible) => input.setInterruptible(interruptible),
          allowDefer: ctx.options.interactive !== true,
        }),
      );
    const response$ = callShaped(ctx, log, tools, state, messages).pipe(assembleBlocks());
    // Without tools there is nothing to interleave (an empty scheduler passes the response on
    // as it is), so a response costs no stage for it.
    const withTools$: Observable<FoldInput> = tools.length === 0 ? response$ : response$.pipe(interleaveTools<AssemblyOutput, ToolEvent>(scheduler));
    return withTools$.pipe(
      foldEach<Attempt, FoldInput, LoopEvent>({
        seed: () => log.latest,
        // Most of a response: deltas the fold only wraps, handed on without a step.
        direct: directEvent,
        fold: (attempt, input) => {
          const step = foldAttempt(attempt, input, env);
          if (step.events[0]?.type === 'assistant_message') ctx.budget?.charge(step.attempt.costUsd);
          if (step.error !== undefined) ctx.budget?.charge(step.attempt.costUsd);
          log.latest = step.attempt;
          if (step.error !== undefined) throw step.error;
          return { state: step.attempt, items: step.events };
        },
        sink: emit,
      }),
    );
  });
}

/** The one event of an input that leaves the attempt as it is (module-level: it runs per stream event). */
function directEvent(attempt: Attempt, input: FoldInput): LoopEvent | undefined {
  return isPassThrough(input) ? passThroughEvent(attempt.state, input) : undefined;
}

/**
 * The scheduler's view of the response: tool_use blocks the fold refuses as identical repeats
 * are left out (the fold answers them). Applies the same pure `repeatVerdict` from the same
 * starting run, so both agree on every block.
 */
function withoutRepeats(start: LoopState['repeatedCall'], limit: number) {
  return (response$: Observable<AssemblyOutput>): Observable<AssemblyOutput> =>
    defer(() => {
      let run = start;
      return response$.pipe(
        filter((event) => {
          if (event.type !== 'block' || event.block.type !== 'tool_use' || 'invalid' in event.block) return true;
          const verdict = repeatVerdict(run, event.block as ToolUseBlock, limit);
          if (!verdict) return true;
          run = verdict.run;
          return !verdict.refused;
        }),
      );
    });
}

/**
 * One attempt's request, sent: the run's fixed parts, the model and the history, then cache
 * breakpoints and beta headers (added last: the history itself never carries them).
 */
function callShaped(ctx: RunContext, log: IterationLog, tools: readonly Tool[], state: LoopState, messages: readonly MessageParam[]) {
  const base = buildRequestBase(ctx.options, ctx.maxOutputTokens, tools);
  // A resumed history may end with a user message before the new prompt: joined. Thinking
  // blocks go only into requests that enable thinking (SPEC §7); the history keeps them.
  // Prepared from what the last request sent (the value the previous iteration handed on).
  const history = prepareHistory(log.prepared, messages, Boolean(base.thinking));
  log.prepared = history;
  const request: MessagesRequest = usualRequest(base, state.model, state.container, history.messages as MessageParam[]) ?? {
    ...base,
    model: state.model,
    // The code-execution container of an earlier response: its files and state carry on.
    ...(state.container !== undefined ? { container: state.container } : {}),
    messages: history.messages as MessageParam[],
  };
  const { request: shaped, callOptions } = shapeRequest(request, {
    promptCaching: ctx.options.promptCaching !== false,
    messageBreakpoints: history.breakpoints,
  });
  return callOptions === undefined ? ctx.callModel(shaped) : ctx.callModel(shaped, callOptions);
}

/**
 * The request of the usual iteration (no thinking, no container) as a literal: the keys the
 * spread in `callShaped` gives, in its order (`buildRequestBase`'s, `model` and `messages` in
 * their places), absent ones absent. Undefined otherwise: the spread builds those.
 */
export function usualRequest(base: MessagesRequest, model: string, container: string | undefined, messages: MessageParam[]): MessagesRequest | undefined {
  if (base.thinking !== undefined || container !== undefined) return undefined;
  const { max_tokens, system, tools, stream } = base;
  if (system === undefined) return tools === undefined ? { model, messages, max_tokens, stream } : { model, messages, max_tokens, tools, stream };
  return tools === undefined ? { model, messages, max_tokens, system, stream } : { model, messages, max_tokens, system, tools, stream };
}

/** After a prompt-too-long error: compact once per turn and go on, or say why it could not help. */
function reactiveCompact(ctx: RunContext, log: IterationLog, error: unknown): Observable<IterationOutput> | undefined {
  const state = log.latest.state;
  if (state.hasAttemptedReactiveCompact) {
    log.compactFailure = 'The conversation was already compacted once in this turn; compacting again would not help.';
    return undefined;
  }
  return ctx.governor.reactiveCompact({ ...governorInput(ctx, state), error: error instanceof Error ? error.message : String(error) }).pipe(
    take(1),
    mergeMap((result) => {
      if (result.type === 'failed') {
        log.compactFailure = result.message;
        // The notices still reach consumers; then the held error is released.
        return concat(from(noticeEvents(state, result.notices)), throwError(() => error));
      }
      const messages = [...result.messages];
      const next = stateWith(reactiveCompactRetry(state, { messages, lastUuid: undefined }));
      next.lastUsage = undefined;
      next.lastUsageCovers = 0;
      const record = boundaryRecord(ctx, state, result.boundary, messages);
      return from<IterationOutput[]>([
        ...noticeEvents(state, result.notices),
        eventOf(state, { type: 'compact_boundary', ...result.boundary }),
        transitionEvent(state, 'reactive_compact_retry', next.turnCount),
        continueWith(next, ctx.transcript ? [...log.pending, record] : [], log.prepared),
      ]);
    }),
  );
}
