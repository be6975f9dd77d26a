/**
 * One iteration (SPEC §2): budget and abort checks, transcript flush, context governance, the
 * model call with its tools interleaved (tools start while the response streams), then the
 * decision. Emits `IterationOutput`s; the last is either a `terminal` event or a `continue`.
 */
import { fromMaybeAsync, type MaybeAsync } from '../../operators/internal/fromMaybeAsync.js';
import {
  concat,
  connect,
  defer,
  EMPTY,
  filter,
  from,
  ignoreElements,
  merge,
  mergeMap,
  of,
  take,
  takeUntil,
  tap,
  catchError,
  throwError,
  type Observable,
} from 'rxjs';
import { assembleBlocks } from '../../operators/assembleBlocks.js';
import { withholdRecoverable } from '../../operators/withholdRecoverable.js';
import { isInvalidToolUse, type AssemblyOutput, type InvalidToolUseBlock } from '../assembly/types.js';
import type { AssistantContentBlock, AssistantMessage, MessageParam, ToolResultBlock, ToolUseBlock } from '../protocol/content.js';
import type { MessagesRequest } from '../protocol/request.js';
import type { Tool, ToolEvent } from '../tools/types.js';
import { assertNever } from '../util/assertNever.js';
import {
  appendAll,
  assistantAddition,
  terminal,
  userAddition,
  type Addition,
  type Decision,
  type ToolBatch,
} from './decision.js';
import { decideAfterStopHook, decideNoTools } from './decideNoTools.js';
import { decideOnError, isOverloaded, isPromptTooLong } from './decideOnError.js';
import { decideAfterPostToolBatch, decideWithTools } from './decideWithTools.js';
import { eventOf, terminalOf, type IterationOutput } from './events.js';
import { toolsOfIteration } from './toolRefresh.js';
import {
  appendBlocksToLastUser,
  joinConsecutiveUsers,
  completeResults,
  errorResult,
  repeatedCallText,
  replayable,
  INTERRUPTED_RESULT_TEXT,
  ORPHAN_RESULT_TEXT,
  stripThinking,
  textOf,
  toolResultsMessage,
} from './messages.js';
import { contextWindowExceeded } from './contextWindow.js';
import { shapeRequest } from './shapeRequest.js';
import { addUsage, budgetPriceFor, costOf, priceFor } from './pricing.js';
import { buildRequestBase, type RunContext } from './runContext.js';
import type { GovernorNotice, HookDecision } from './seams.js';
import { nextTurn, reactiveCompactRetry } from './transitions.js';
import type { LoopError, LoopState } from './types.js';

/** Mutable bookkeeping of one model attempt; reset on fallback and on `stream_retry`. */
interface Attempt {
  messageUuid: string | undefined;
  message: AssistantMessage | undefined;
  blocks: AssistantContentBlock[];
  toolUses: ToolUseBlock[];
  results: Map<string, ToolResultBlock>;
  batch: ToolBatch | undefined;
  error: unknown;
  /** Calls refused as identical repeats: never handed to the scheduler, answered here. */
  refused: Map<string, ToolResultBlock>;
}

function newAttempt(): Attempt {
  return {
    messageUuid: undefined,
    message: undefined,
    blocks: [],
    toolUses: [],
    results: new Map(),
    batch: undefined,
    error: undefined,
    refused: new Map(),
  };
}

/** A tool_use block as history keeps it: the `invalid` marker is ours, not the API's. */
function plainBlock(block: AssistantContentBlock | InvalidToolUseBlock): AssistantContentBlock {
  if (block.type === 'tool_use' && 'invalid' in block) {
    const { invalid: _invalid, ...rest } = block;
    return rest;
  }
  return block;
}

/** The API's prompt-too-long error with the reason compaction could not help (status kept). */
function explained(error: LoopError, why: string): LoopError {
  return { ...error, message: why.includes(error.message) ? why : `${error.message}. ${why}` };
}

export function runIteration(ctx: RunContext, initial: LoopState): Observable<IterationOutput> {
  // Without a refresh seam the tools are fixed: no extra hop per iteration.
  if (!ctx.options.refreshTools) return iterate(ctx, initial, ctx.options.tools ?? []);
  return defer(() => toolsOfIteration(ctx.options)).pipe(mergeMap((tools) => iterate(ctx, initial, tools)));
}

function iterate(ctx: RunContext, initial: LoopState, iterationTools: readonly Tool[]): Observable<IterationOutput> {
  return defer(() => {
    let state = initial;
    ctx.depth = state.depth;
    const ev = (body: Parameters<typeof eventOf>[1]) => eventOf(state, body);

    // ---- ending ------------------------------------------------------------------------------
    /** The history a failed transcript write ends the run with (valid at every flush point). */
    let flushedHistory: readonly MessageParam[] = state.messages;
    const flushTranscript = (history: readonly MessageParam[]): Observable<never> =>
      defer(() => {
        flushedHistory = history;
        const sink = ctx.transcript;
        if (!sink || ctx.pendingTranscript.length === 0) return EMPTY;
        return from(sink.append(ctx.pendingTranscript.splice(0)));
      }).pipe(
        ignoreElements(),
        catchError((error: unknown) => throwError(() => new TranscriptWriteFailure(error))),
      );
    /**
     * Preparing a request can fail outside the model call: a transcript that cannot be written
     * (disk full, permissions: going on would leave work the user believes saved unsaved), or a
     * context governor or hook that throws. The run then ends with `turn_setup_failed` and the
     * cause, never with an Observable error that would leave consumers without a terminal.
     */
    const endOnSetupFailure = (error: unknown): Observable<IterationOutput> => {
      const transcript = error instanceof TranscriptWriteFailure;
      const cause = transcript ? error.cause : error;
      const detail = cause instanceof Error ? cause.message : String(cause);
      return of(
        terminalOf(state, ctx.now() - ctx.startedAt, {
          reason: 'turn_setup_failed',
          error: transcript
            ? { kind: 'session', message: `could not write the session transcript: ${detail}` }
            : { kind: 'internal', message: `preparing the next request failed: ${detail}` },
          messages: flushedHistory,
        }),
      );
    };

    const record = (additions: readonly Addition[]): void => {
      if (!ctx.transcript) return;
      const timestamp = Date.now();
      let parentUuid = state.lastMessageUuid;
      for (const a of additions) {
        const base = { chainId: state.chainId, depth: state.depth, timestamp, uuid: a.uuid, parentUuid };
        ctx.pendingTranscript.push(
          a.message.role === 'assistant'
            ? { ...base, type: 'assistant', message: a.source ? { ...a.source, content: a.message.content as AssistantMessage['content'] } : (a.message as unknown as AssistantMessage) }
            : { ...base, type: 'user', message: a.message, reason: a.reason ?? 'prompt', isMeta: a.isMeta },
        );
        parentUuid = a.uuid;
      }
    };

    const finish = (decision: Decision): Observable<IterationOutput> => {
      if (decision.type === 'run_stop_hook' || decision.type === 'run_post_tool_batch') {
        return throwError(() => new Error(`internal: unresolved decision ${decision.type}`));
      }
      // Input submitted while the turn was ending is not dropped: it starts the next turn.
      if (
        decision.type === 'terminal' &&
        decision.reason === 'completed' &&
        ctx.queue.length > 0 &&
        ctx.abortCause() === undefined &&
        decision.additions[decision.additions.length - 1]?.message.role === 'assistant'
      ) {
        const queued = absorbQueue();
        const additions = [...decision.additions, userAddition({ role: 'user', content: [...queued] }, ctx.newId(), 'queued_input', false)];
        if (state.turnCount + 1 > ctx.decideConfig.maxTurns) return finish(terminal('max_turns', { additions, warnings: decision.warnings }));
        return finish({ type: 'continue', state: nextTurn(state, appendAll(state, additions), state.shared), additions, warnings: decision.warnings });
      }
      // A continue decided after an abort (e.g. while a hook ran) still ends the run aborted.
      if (decision.type === 'continue' && ctx.abortCause() === 'signal') {
        return finish(terminal('aborted_tools', { additions: decision.additions }));
      }
      const out: IterationOutput[] = pendingLifecycle.splice(0);
      for (const a of decision.additions) {
        if (a.message.role === 'user') {
          out.push(ev({ type: 'user_message', message: a.message as MessageParam & { role: 'user' }, uuid: a.uuid, reason: a.reason ?? 'prompt', isMeta: a.isMeta }));
        }
      }
      for (const message of decision.warnings) out.push(ev({ type: 'warning', message }));
      record(decision.additions);
      if (decision.type === 'continue') {
        const next = decision.state;
        out.push(ev({ type: 'transition', reason: next.transition!.reason, turnCount: next.turnCount }));
        out.push({ kind: 'continue', state: next });
        return from(out);
      }
      const reason = decision.reason;
      // Submitted input is settled by `loopOf` right before the terminal is delivered, after the
      // transcript flush below: input arriving during the flush is reported, not lost.
      const messages = appendAll(state, decision.additions).messages;
      const terminalEvent = terminalOf(state, ctx.now() - ctx.startedAt, {
        reason,
        error: decision.error,
        messages,
        deferredToolUse: decision.deferredToolUse,
      });
      return concat(from(out), flushTranscript(messages), of(terminalEvent));
    };

    /** The partial (or complete) assistant message plus results for every tool_use, real or synthetic. */
    const orphanAdditions = (attempt: Attempt, missingText: string): Addition[] => {
      const source: AssistantMessage = attempt.message ?? {
        id: attempt.messageUuid ?? 'partial',
        type: 'message',
        role: 'assistant',
        model: state.model,
        content: attempt.blocks,
        stop_reason: null,
        usage: {},
      };
      // Replayable: no empty text, no trailing thinking (a message with tool calls keeps them).
      const replay = replayable(source);
      if (!replay) return [];
      const additions: Addition[] = [assistantAddition(replay, attempt.messageUuid ?? ctx.newId(), source)];
      if (attempt.toolUses.length > 0) {
        const have = new Map(attempt.results);
        for (const r of attempt.batch?.results ?? []) have.set(r.tool_use_id, r);
        const results = completeResults(attempt.toolUses, have, missingText);
        additions.push(userAddition(toolResultsMessage(results), ctx.newId(), 'orphan_results', false));
      }
      return additions;
    };

    // ---- hooks -------------------------------------------------------------------------------
    const runHook = (call: () => MaybeAsync<HookDecision>): Observable<HookDecision> =>
      defer(() => {
        const answer = call();
        // A synchronous answer stays synchronous (virtual time in marble tests).
        return fromMaybeAsync(answer);
      }).pipe(
        take(1),
        catchError((error: unknown) =>
          of<HookDecision>({ warnings: [`a hook failed and was ignored: ${error instanceof Error ? error.message : String(error)}`] }),
        ),
      );

    const resolve = (decision: Decision, attempt: Attempt): Observable<IterationOutput> => {
      const message = attempt.message!;
      const uuid = attempt.messageUuid ?? ctx.newId();
      const hooks = ctx.options.hooks;
      if (decision.type === 'run_stop_hook' && hooks?.stop) {
        const stop = hooks.stop;
        return runHook(() =>
          stop({
            chainId: state.chainId,
            depth: state.depth,
            messages: state.messages,
            lastAssistantMessage: message,
            stopHookActive: state.stopHookActive,
            signal: ctx.signal,
          }),
        ).pipe(mergeMap((hook) => finish(decideAfterStopHook(state, message, uuid, hook, ctx.decideConfig))));
      }
      if (decision.type === 'run_post_tool_batch' && hooks?.postToolBatch && attempt.batch) {
        const batch = attempt.batch;
        const post = hooks.postToolBatch;
        return runHook(() =>
          post({ chainId: state.chainId, depth: state.depth, toolUses: attempt.toolUses, results: batch.results, messages: state.messages, signal: ctx.signal }),
        ).pipe(mergeMap((hook) => finish(decideAfterPostToolBatch(state, message, uuid, batch, hook, absorbQueue(), ctx.decideConfig))));
      }
      if (decision.type === 'continue' && decision.state.transition?.reason === 'next_turn') {
        // Queued input rides with the tool results (absorbed only when the turn goes on).
        const queued = absorbQueue();
        if (queued.length > 0 && attempt.batch) {
          return finish(decideAfterPostToolBatch(state, message, uuid, attempt.batch, undefined, queued, ctx.decideConfig));
        }
      }
      return finish(decision);
    };

    const absorbQueue = () => {
      const items = ctx.queue.splice(0);
      const started: IterationOutput[] = [];
      for (const item of items) {
        ctx.started.push({ id: item.id, seen: false });
        started.push(ev({ type: 'command_lifecycle', id: item.id, status: 'started' }));
      }
      pendingLifecycle.push(...started);
      return items.flatMap((item) => item.content);
    };
    const pendingLifecycle: IterationOutput[] = [];

    // ---- after the response ------------------------------------------------------------------
    const decide = (attempt: Attempt): Observable<IterationOutput> => {
      const abortedReason = attempt.message ? 'aborted_tools' : 'aborted_streaming';
      if (ctx.abortCause() !== undefined) {
        return finish(terminal(abortedReason, { additions: orphanAdditions(attempt, ORPHAN_RESULT_TEXT) }));
      }
      if (interrupted) {
        // The submission itself is the context: no "interrupted" message, just its content.
        const additions = orphanAdditions(attempt, INTERRUPTED_RESULT_TEXT);
        const queued = absorbQueue();
        if (queued.length === 0) return finish(terminal(abortedReason, { additions }));
        if (additions.length === 0) {
          // Nothing of the response survives: the input joins the last user message.
          const messages = appendBlocksToLastUser(state.messages, queued);
          const addition = userAddition({ role: 'user', content: [...queued] }, ctx.newId(), 'queued_input', false);
          if (state.turnCount + 1 > ctx.decideConfig.maxTurns) return finish(terminal('max_turns', { additions: [] }));
          return finish({
            type: 'continue',
            state: nextTurn(state, { messages, lastUuid: addition.uuid }, state.shared),
            additions: [addition],
            warnings: [],
          });
        }
        const last = additions[additions.length - 1];
        if (last && last.message.role === 'user' && Array.isArray(last.message.content)) {
          additions[additions.length - 1] = { ...last, reason: 'queued_input', message: { role: 'user', content: [...last.message.content, ...queued] } };
        } else {
          additions.push(userAddition({ role: 'user', content: [...queued] }, ctx.newId(), 'queued_input', false));
        }
        if (state.turnCount + 1 > ctx.decideConfig.maxTurns) return finish(terminal('max_turns', { additions }));
        return finish({ type: 'continue', state: nextTurn(state, appendAll(state, additions), state.shared), additions, warnings: [] });
      }
      if (attempt.error !== undefined || !attempt.message) {
        const decided =
          attempt.error !== undefined
            ? decideOnError(attempt.error)
            : { reason: 'model_error' as const, error: { kind: 'internal' as const, message: 'the response ended without a message' } };
        const { reason } = decided;
        const error = reason === 'prompt_too_long' && compactFailure !== undefined ? explained(decided.error, compactFailure) : decided.error;
        return finish(terminal(reason, { error, additions: orphanAdditions(attempt, ORPHAN_RESULT_TEXT) }));
      }
      const message = attempt.message;
      const uuid = attempt.messageUuid ?? ctx.newId();
      if (attempt.toolUses.length > 0) {
        const batch: ToolBatch = attempt.batch ?? {
          type: 'tool_batch',
          results: completeResults(attempt.toolUses, attempt.results, ORPHAN_RESULT_TEXT),
          endsTurn: false,
          shared: state.shared,
        };
        attempt.batch = batch;
        return resolve(decideWithTools(state, message, uuid, batch, ctx.decideConfig), attempt);
      }
      return resolve(decideNoTools(state, message, uuid, ctx.decideConfig), attempt);
    };

    // ---- the model call ----------------------------------------------------------------------
    const base = buildRequestBase(ctx.options, ctx.maxOutputTokens, iterationTools);
    const toolsOf = (model: string, messages: readonly MessageParam[]): MessagesRequest => ({
      ...base,
      model,
      // The code-execution container of an earlier response: its files and state carry on.
      ...(state.container !== undefined ? { container: state.container } : {}),
      // A resumed history may end with a user message before the new prompt: join them. Thinking
      // blocks go only into requests that enable thinking (SPEC §7); the history keeps them.
      messages: (base.thinking ? joinConsecutiveUsers(messages) : stripThinking(joinConsecutiveUsers(messages))) as MessageParam[],
    });

    // Cache breakpoints and beta headers, added last (the history itself never carries them).
    const callShaped = (model: string, messages: readonly MessageParam[]) => {
      const { request, callOptions } = shapeRequest(toolsOf(model, messages), { promptCaching: ctx.options.promptCaching === true });
      return callOptions === undefined ? ctx.callModel(request) : ctx.callModel(request, callOptions);
    };

    let attempt = newAttempt();
    let interrupted = false;
    const stop$ = merge(
      ctx.abort$,
      ctx.interrupt$.pipe(
        tap(() => {
          interrupted = true;
        }),
      ),
    );

    const onModel = (event: AssemblyOutput): IterationOutput[] => {
      switch (event.type) {
        case 'api_retry':
          return [ev({ type: 'api_retry', retry: event })];
        case 'stream_retry':
          attempt = { ...newAttempt() };
          return [ev({ type: 'stream_retry', retry: event })];
        case 'debug':
          return [ev({ type: 'model', event })];
        case 'warning':
          return [ev({ type: 'warning', message: event.message, code: 'stream_assembly' })];
        case 'message_start':
          attempt.messageUuid = ctx.newId();
          return [ev({ type: 'model', event })];
        case 'block': {
          const block = plainBlock(event.block);
          attempt.blocks.push(block);
          if (block.type !== 'tool_use') return [ev({ type: 'model', event })];
          attempt.toolUses.push(block);
          if (isInvalidToolUse(event.block)) return [ev({ type: 'model', event })];
          return [ev({ type: 'model', event }), ...checkRepeat(block)];
        }
        case 'message': {
          const message = event.message;
          attempt.message = message;
          const model = message.model || state.model;
          // Under a budget an unknown model is charged the highest known price, never $0.
          const cost = costOf(message.usage, ctx.budget ? budgetPriceFor(model, ctx.prices) : priceFor(model, ctx.prices));
          ctx.budget?.charge(cost);
          const text = textOf(message);
          state = {
            ...state,
            usage: addUsage(state.usage, message.usage),
            costUsd: state.costUsd + cost,
            turnOutputTokens: state.turnOutputTokens + (message.usage.output_tokens ?? 0),
            lastAssistantText: text !== '' ? text : state.lastAssistantText,
            container: message.container?.id ?? state.container,
            lastUsage: message.usage,
            // The reply will sit right after the messages this request carried.
            lastUsageCovers: state.messages.length + 1,
          };
          // Recovered like prompt-too-long (reactive compaction): the cut reply is not kept, its cost is.
          const windowExceeded = contextWindowExceeded(message);
          if (windowExceeded) throw windowExceeded;
          return [ev({ type: 'assistant_message', message, uuid: attempt.messageUuid ?? (attempt.messageUuid = ctx.newId()) })];
        }
        case 'block_start':
        case 'text_delta':
        case 'thinking_delta':
        case 'tool_input_delta':
        case 'message_delta':
          return [ev({ type: 'model', event })];
        default:
          return assertNever(event, 'assembly output');
      }
    };

    /**
     * Identical consecutive calls (same name and input, across iterations): from the limit on,
     * the call is not run; the model gets an error result saying it is repeating itself.
     */
    const checkRepeat = (block: ToolUseBlock): IterationOutput[] => {
      const limit = ctx.repeatedToolCallLimit;
      if (limit <= 0) return [];
      const signature = `${block.name}\u0000${JSON.stringify(block.input)}`;
      const previous = state.repeatedCall;
      const count = previous && previous.signature === signature ? previous.count + 1 : 1;
      state = { ...state, repeatedCall: { signature, count } };
      if (count < limit) return [];
      const result = errorResult(block.id, repeatedCallText(block.name, count));
      attempt.refused.set(block.id, result);
      attempt.results.set(block.id, result);
      return [
        ev({ type: 'warning', message: `${block.name} was called ${count} times in a row with the same input; not run again`, code: 'repeated_tool_call' }),
        ev({ type: 'tool_result', toolUseId: block.id, name: block.name, result, durationMs: 0 }),
      ];
    };

    const onTool = (event: ToolEvent): IterationOutput[] => {
      switch (event.type) {
        case 'tool_start':
          return [ev({ type: 'tool_start', toolUseId: event.toolUseId, name: event.name, input: event.input })];
        case 'tool_progress':
          return [ev({ type: 'tool_progress', toolUseId: event.toolUseId, name: event.name, data: event.data })];
        case 'tool_result': {
          attempt.results.set(event.toolUseId, event.result);
          const result = ev({ type: 'tool_result', toolUseId: event.toolUseId, name: event.name, result: event.result, durationMs: event.durationMs });
          if (!event.deferral) return [result];
          // An accepted deferral has no result yet (the terminal names the call); an ignored one ran.
          if (event.deferral.accepted) return [];
          const why = ctx.options.interactive === true ? 'this run is interactive' : 'its response holds other tool calls';
          return [
            ev({ type: 'warning', message: `a PreToolUse hook deferred ${event.name} (${event.toolUseId}), which was ignored: ${why}`, code: 'tool_defer_ignored' }),
            result,
          ];
        }
        case 'tool_batch': {
          if (attempt.refused.size === 0) {
            attempt.batch = event;
            return [];
          }
          // Put the refused calls' results back in tool_use order.
          const byId = new Map(event.results.map((r) => [r.tool_use_id, r] as const));
          for (const [id, r] of attempt.refused) byId.set(id, r);
          attempt.batch = { ...event, results: completeResults(attempt.toolUses, byId, ORPHAN_RESULT_TEXT) };
          return [];
        }
        default:
          return assertNever(event, 'tool event');
      }
    };

    /** One model attempt with its tools; errors are rethrown only after the tools drained. */
    const callOnce = (model: string, messages: readonly MessageParam[]): Observable<IterationOutput> =>
      defer(() => {
        attempt = newAttempt();
        ctx.interruptible = true;
        for (const command of ctx.started) command.seen = true;
        const current = attempt;
        const tools = iterationTools;
        return concat(
          callShaped(model, messages).pipe(
            assembleBlocks(),
            connect((shared$) =>
              merge(
                shared$.pipe(
                  mergeMap(onModel),
                  catchError((error: unknown) => {
                    current.error = error;
                    return EMPTY;
                  }),
                ),
                tools.length === 0
                  ? EMPTY
                  : shared$.pipe(
                      filter((e) => !(e.type === 'block' && e.block.type === 'tool_use' && current.refused.has(e.block.id))),
                      ctx.scheduleTools({
                        tools,
                        shared: state.shared,
                        hooks: ctx.options.hooks,
                        canUseTool: ctx.options.canUseTool,
                        onInterruptibleChange: (interruptible) => {
                          ctx.interruptible = interruptible;
                        },
                        allowDefer: ctx.options.interactive !== true,
                      }),
                      mergeMap(onTool),
                      // The model branch recorded the error; the scheduler re-emits it after its batch.
                      catchError(() => EMPTY),
                    ),
              ),
            ),
          ),
          defer(() => (current.error !== undefined ? throwError(() => current.error) : EMPTY)),
        );
      });

    const withFallback = (messages: readonly MessageParam[]): Observable<IterationOutput> =>
      callOnce(state.model, messages).pipe(
        catchError((error: unknown) => {
          const fallback = ctx.options.fallbackModel;
          if (!isOverloaded(error) || !fallback || fallback === state.model) return throwError(() => error);
          // The failed attempt's message is void: consumers remove it; thinking is model-bound.
          const failed = attempt.messageUuid;
          const stripped = stripThinking(state.messages);
          state = { ...state, model: fallback, messages: stripped };
          const notice = [
            ...(failed ? [ev({ type: 'tombstone', uuids: [failed] })] : []),
            ev({ type: 'warning', message: `model ${initial.model} is overloaded; switching to ${fallback}`, code: 'model_fallback' }),
          ];
          return concat(from(notice), callOnce(fallback, stripped));
        }),
      );

    /**
     * What the governor did besides its decision, as events, in its order. Snip/microcompact
     * boundaries are not transcript records: the loop keeps the full history and the governor
     * derives the same view from it again on every call (after a resume too), while a record
     * would copy the whole view into the transcript at each boundary.
     */
    const noticeEvents = (notices: readonly GovernorNotice[] | undefined): IterationOutput[] =>
      (notices ?? []).map((notice) => {
        switch (notice.type) {
          case 'compact_boundary':
            return ev({ type: 'compact_boundary', ...notice.boundary });
          case 'warning':
            return ev({ type: 'warning', message: notice.message, code: notice.code });
          default:
            return assertNever(notice, 'governor notice');
        }
      });

    /**
     * Why reactive compaction could not help, for the `prompt_too_long` terminal (the status and
     * error type stay the API's). Set when the recovery gave up; the held error is then released.
     */
    let compactFailure: string | undefined;

    /** What the governor sees of the current state, before a call and for reactive compaction. */
    const governorInput = () => ({
      chainId: state.chainId,
      depth: state.depth,
      messages: state.messages,
      model: state.model,
      maxOutputTokens: ctx.maxOutputTokens,
      lastUsage: state.lastUsage,
      messagesSinceUsage: state.lastUsageCovers,
      signal: ctx.signal,
    });

    const reactiveCompact = (error: unknown): Observable<IterationOutput> | undefined => {
      if (state.hasAttemptedReactiveCompact) {
        compactFailure = 'The conversation was already compacted once in this turn; compacting again would not help.';
        return undefined;
      }
      return ctx.governor
        .reactiveCompact({ ...governorInput(), error: error instanceof Error ? error.message : String(error) })
        .pipe(
          take(1),
          mergeMap((result) => {
            if (result.type === 'failed') {
              compactFailure = result.message;
              // The notices still reach consumers; then the held error is released.
              return concat(from(noticeEvents(result.notices)), throwError(() => error));
            }
            const messages = [...result.messages];
            const next = { ...reactiveCompactRetry(state, { messages, lastUuid: undefined }), lastUsage: undefined, lastUsageCovers: 0 };
            ctx.pendingTranscript.push({
              type: 'compact_boundary',
              chainId: state.chainId,
              depth: state.depth,
              timestamp: Date.now(),
              boundary: result.boundary,
              messages,
            });
            return from([
              ...noticeEvents(result.notices),
              ev({ type: 'compact_boundary', ...result.boundary }),
              ev({ type: 'transition', reason: 'reactive_compact_retry', turnCount: next.turnCount }),
              { kind: 'continue', state: next } as IterationOutput,
            ]);
          }),
        );
    };

    const modelPhase = (messages: readonly MessageParam[]): Observable<IterationOutput> => {
      let recovered = false;
      return concat(
        withFallback(messages).pipe(
          withholdRecoverable<IterationOutput>({
            isRecoverable: isPromptTooLong,
            recover: (error) => {
              const recovery = reactiveCompact(error);
              if (recovery) recovered = true;
              return recovery;
            },
          }),
          catchError((error: unknown) => {
            recovered = false;
            attempt.error = error;
            return EMPTY;
          }),
          takeUntil(stop$),
        ),
        defer(() => (recovered && ctx.abortCause() === undefined && !interrupted ? EMPTY : decide(attempt))),
      );
    };

    // ---- the iteration -----------------------------------------------------------------------
    if (ctx.abortCause() !== undefined) return decide(newAttempt());
    if (ctx.budget?.exhausted()) {
      return finish(
        terminal('budget_exhausted', {
          error: { kind: 'internal', message: `the cost budget of $${ctx.budget.maxUsd} is spent ($${ctx.budget.spentUsd().toFixed(4)})` },
        }),
      );
    }
    const start = ev({ type: 'iteration_start', turnCount: state.turnCount, model: state.model, transition: state.transition?.reason });
    // Deferred: the governor runs after the transcript flush, and a governor that throws
    // synchronously ends the run like one that errors (endOnSetupFailure).
    const governed$ = defer(() => ctx.governor.beforeCall(governorInput())).pipe(
        take(1),
        mergeMap((decision): Observable<IterationOutput> => {
          const notices = noticeEvents(decision.notices);
          switch (decision.type) {
            case 'ok':
              return notices.length === 0 ? modelPhase(decision.messages) : concat(from(notices), modelPhase(decision.messages));
            case 'compacted': {
              const messages = [...decision.messages];
              state = { ...state, messages, lastMessageUuid: undefined, lastUsage: undefined, lastUsageCovers: 0 };
              ctx.pendingTranscript.push({
                type: 'compact_boundary',
                chainId: state.chainId,
                depth: state.depth,
                timestamp: Date.now(),
                boundary: decision.boundary,
                messages,
              });
              return concat(from([...notices, ev({ type: 'compact_boundary', ...decision.boundary })]), flushTranscript(messages), modelPhase(messages));
            }
            case 'blocking_limit':
              return concat(from(notices), finish(terminal('blocking_limit', { error: { kind: 'internal', message: decision.message } })));
            case 'rapid_refill_breaker':
              return concat(
                from(notices),
                finish(terminal('rapid_refill_breaker', { error: { kind: 'internal', message: decision.message } })),
              );
            default:
              return assertNever(decision, 'governor decision');
          }
        }),
      );
    return concat(of(start), flushTranscript(state.messages), governed$).pipe(catchError(endOnSetupFailure));
  });
}

/** Marks a transcript write failure so the iteration can end with it instead of erroring. */
class TranscriptWriteFailure extends Error {
  constructor(override readonly cause: unknown) {
    super('transcript write failed');
  }
}
