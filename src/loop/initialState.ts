/** The state of the first iteration, and the setup step that turns a prompt into history. */
import { catchError, defer, from, map, mergeMap, of, take, type Observable } from 'rxjs';
import { fromMaybeAsync } from '../../operators/internal/fromMaybeAsync.js';
import type { MessageParam, TextBlock } from '../protocol/content.js';
import { continueWith, eventOf, terminalOf, type IterationOutput } from './events.js';
import { ZERO_USAGE } from './pricing.js';
import type { RunContext } from './runContext.js';
import type { TranscriptRecord, UserPromptSubmitDecision } from './seams.js';
import { stateWith } from './stateWith.js';
import { FRESH_TURN_COUNTERS } from './transitions.js';
import type { LoopError, LoopState, TerminalReason } from './types.js';

/**
 * Listed key by key in `stateWith`'s order (with `container` undefined), so the first state has
 * the same shape as every later one.
 */
export function initialState(ctx: RunContext): LoopState {
  const messages = [...(ctx.options.messages ?? [])];
  return {
    messages,
    lastMessageUuid: ctx.options.parentUuid ?? (messages.length > 0 ? ctx.newId() : undefined),
    turnCount: 1,
    chainId: ctx.chainId,
    depth: ctx.options.depth ?? 0,
    transition: undefined,
    model: ctx.options.model,
    shared: ctx.options.shared ?? {},
    maxOutputTokensRecoveryCount: FRESH_TURN_COUNTERS.maxOutputTokensRecoveryCount,
    malformedToolUseRetryCount: FRESH_TURN_COUNTERS.malformedToolUseRetryCount,
    thinkingOnlyNudged: FRESH_TURN_COUNTERS.thinkingOnlyNudged,
    pauseTurnContinuations: FRESH_TURN_COUNTERS.pauseTurnContinuations,
    container: undefined,
    hasAttemptedReactiveCompact: FRESH_TURN_COUNTERS.hasAttemptedReactiveCompact,
    stopHookActive: FRESH_TURN_COUNTERS.stopHookActive,
    stopHookBlockCount: FRESH_TURN_COUNTERS.stopHookBlockCount,
    tokenBudgetContinuations: 0,
    turnOutputTokens: 0,
    tokenBudgetIncrements: [],
    repeatedCall: undefined,
    usage: ZERO_USAGE,
    costUsd: 0,
    lastAssistantText: undefined,
    lastUsage: undefined,
    lastUsageCovers: 0,
  } satisfies Record<keyof LoopState, unknown>;
}

export function setupTerminal(ctx: RunContext, state: LoopState, reason: TerminalReason, error?: LoopError): IterationOutput {
  return terminalOf(state, ctx.now() - ctx.startedAt, { reason, error });
}

/** `expandPrompt` failed: the turn's prompt could not be made (told apart from a hook's failure). */
class PromptExpansionError extends Error {}

function promptMessage(prompt: string | MessageParam): MessageParam {
  return typeof prompt === 'string' ? { role: 'user', content: [{ type: 'text', text: prompt }] } : prompt;
}

/**
 * Appends the prompt (after the UserPromptSubmit hook) and hands the first state to `expand`.
 * Anything thrown here ends the run with `turn_setup_failed`.
 */
export function setup(ctx: RunContext): Observable<IterationOutput> {
  return defer(() => {
    const state = initialState(ctx);
    const prompt = ctx.options.prompt;
    if (prompt === undefined) {
      if (state.messages.length === 0) {
        return of(setupTerminal(ctx, state, 'turn_setup_failed', { kind: 'configuration', message: 'agentLoop needs `prompt` or `messages`' }));
      }
      return of<IterationOutput>(continueWith(state));
    }
    const typed = promptMessage(prompt);
    const expand = ctx.options.expandPrompt;
    // A prompt that names a command (an MCP prompt) becomes its text first; a failure is a
    // configuration error of this turn, told as such, and nothing reaches the model.
    const message$: Observable<MessageParam> = expand
      ? defer(() => fromMaybeAsync(expand(typed, ctx.signal)).pipe(take(1)))
      : of(typed);
    const hook = ctx.options.hooks?.userPromptSubmit;
    type Answer = UserPromptSubmitDecision | undefined;
    const answerTo = (message: MessageParam): Observable<Answer> =>
      hook
        ? defer(() => {
            const answer = hook({ chainId: state.chainId, depth: state.depth, prompt: message, signal: ctx.signal });
            return fromMaybeAsync(answer).pipe(take(1));
          })
        : of(undefined);
    return message$.pipe(
      catchError((error: unknown) => {
        throw new PromptExpansionError(error instanceof Error ? error.message : String(error));
      }),
      mergeMap((message) => answerTo(message).pipe(map((answer) => ({ message, answer })))),
      mergeMap(({ message, answer }): Observable<IterationOutput> => {
        const out: IterationOutput[] = (answer?.warnings ?? []).map((m) => eventOf(state, { type: 'warning', message: m }));
        if (answer?.block !== undefined || answer?.preventContinuation !== undefined) {
          out.push(setupTerminal(ctx, state, 'hook_stopped'));
          return from(out);
        }
        const extra: TextBlock[] = answer?.additionalContext ? [{ type: 'text', text: answer.additionalContext }] : [];
        const full: MessageParam =
          extra.length === 0
            ? message
            : { role: 'user', content: [...(typeof message.content === 'string' ? [{ type: 'text' as const, text: message.content }] : message.content), ...extra] };
        const uuid = ctx.newId();
        const next = stateWith(state);
        next.messages = [...state.messages, full];
        next.lastMessageUuid = uuid;
        const record: TranscriptRecord = {
          type: 'user',
          chainId: state.chainId,
          depth: state.depth,
          timestamp: ctx.now(),
          uuid,
          parentUuid: state.lastMessageUuid,
          message: full,
          reason: 'prompt',
          isMeta: false,
        };
        out.push(eventOf(state, { type: 'user_message', message: full as MessageParam & { role: 'user' }, uuid, reason: 'prompt' }));
        out.push(continueWith(next, ctx.transcript ? [record] : []));
        return from(out);
      }),
      catchError((error: unknown) =>
        of(
          setupTerminal(ctx, state, 'turn_setup_failed', {
            kind: error instanceof PromptExpansionError ? 'configuration' : 'hook',
            message: error instanceof Error ? error.message : String(error),
          }),
        ),
      ),
    );
  });
}
