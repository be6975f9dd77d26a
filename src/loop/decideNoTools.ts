/**
 * SPEC §2 step 7: the response finished without a tool call. In order: max-output-tokens
 * recovery, malformed tool-use retry, thinking-only nudge, Stop hook, token budget, completed.
 * (Prompt too long and API errors never reach here: they are errors of the call, see
 * `decideOnError`.) Pure: the hook's answer comes in through `decideAfterStopHook`.
 */
import type { AssistantMessage } from '../protocol/content.js';
import type { HookDecision } from './seams.js';
import {
  appendAll,
  assistantAddition,
  terminal,
  userAddition,
  type Addition,
  type DecideConfig,
  type Decision,
} from './decision.js';
import {
  CONTINUATION_TEXT,
  MALFORMED_TOOL_USE_TEXT,
  THINKING_ONLY_NUDGE_TEXT,
  appendToLastUser,
  isThinkingOnly,
  replayable,
  tokenBudgetText,
  userText,
} from './messages.js';
import { MALFORMED_TOOL_USE_RETRY_LIMIT, MAX_OUTPUT_TOKENS_RECOVERY_LIMIT, STOP_HOOK_BLOCK_CAP } from './options.js';
import {
  malformedToolUseRetry,
  maxOutputTokensRecovery,
  stopHookBlocking,
  thinkingOnlyNudge,
  tokenBudgetContinuation,
  type Appended,
} from './transitions.js';
import { decideStopReason } from './stopReasons.js';
import type { LoopState, UserMessageReason } from './types.js';

/** The assistant message as history keeps it (none when nothing replayable is left). */
function assistantAdditions(message: AssistantMessage, uuid: string): Addition[] {
  const replay = replayable(message);
  return replay ? [assistantAddition(replay, uuid, message)] : [];
}

/**
 * `kept` followed by a user text. When nothing of the reply is replayable the history still ends
 * with a user message, so the text joins it (roles must alternate; the API refuses two user
 * messages in a row) instead of becoming a second user message.
 */
function followUp(
  state: LoopState,
  kept: readonly Addition[],
  text: string,
  reason: UserMessageReason,
  isMeta: boolean,
  config: DecideConfig,
): { readonly additions: Addition[]; readonly next: Appended } {
  if (kept.length === 0 && state.messages[state.messages.length - 1]?.role === 'user') {
    return { additions: [], next: { messages: appendToLastUser(state.messages, text), lastUuid: state.lastMessageUuid } };
  }
  const additions = [...kept, userAddition(userText(text), config.newId(), reason, isMeta)];
  return { additions, next: appendAll(state, additions) };
}

export function decideNoTools(state: LoopState, message: AssistantMessage, uuid: string, config: DecideConfig): Decision {
  const special = decideStopReason(state, message, uuid);
  if (special !== undefined) return special;
  if (message.stop_reason === 'max_tokens') {
    const kept = assistantAdditions(message, uuid);
    if (state.maxOutputTokensRecoveryCount < MAX_OUTPUT_TOKENS_RECOVERY_LIMIT) {
      const { additions, next } = followUp(state, kept, CONTINUATION_TEXT, 'continuation', true, config);
      return { type: 'continue', state: maxOutputTokensRecovery(state, next), additions, warnings: [] };
    }
    // The withheld condition surfaces only now that every recovery request was spent.
    return terminal('model_error', {
      additions: kept,
      error: {
        kind: 'max_output_tokens',
        message: `the response hit the output token limit ${MAX_OUTPUT_TOKENS_RECOVERY_LIMIT + 1} times in a row`,
      },
    });
  }

  if (message.stop_reason === 'tool_use') {
    // stop_reason says a tool call follows but no complete tool_use block arrived.
    const kept = assistantAdditions(message, uuid);
    if (state.malformedToolUseRetryCount < MALFORMED_TOOL_USE_RETRY_LIMIT) {
      const { additions, next } = followUp(state, kept, MALFORMED_TOOL_USE_TEXT, 'malformed_tool_use_correction', true, config);
      return { type: 'continue', state: malformedToolUseRetry(state, next), additions, warnings: [] };
    }
    return terminal('malformed_tool_use_exhausted', {
      additions: kept,
      error: { kind: 'malformed_tool_use', message: 'the model announced a tool call twice without sending a complete one' },
    });
  }

  if (isThinkingOnly(message) && !state.thinkingOnlyNudged) {
    // The thinking-only reply is dropped; the nudge rides on the last user message.
    const messages = appendToLastUser(state.messages, THINKING_ONLY_NUDGE_TEXT);
    return {
      type: 'continue',
      state: thinkingOnlyNudge(state, { messages, lastUuid: state.lastMessageUuid }),
      additions: [],
      warnings: [],
    };
  }

  if (config.hasStopHook) return { type: 'run_stop_hook' };
  return decideAfterStopHook(state, message, uuid, undefined, config);
}

export function decideAfterStopHook(
  state: LoopState,
  message: AssistantMessage,
  uuid: string,
  hook: HookDecision | undefined,
  config: DecideConfig,
): Decision {
  // A second thinking-only reply is accepted as the (empty) answer but never replayed.
  const kept = isThinkingOnly(message) ? [] : assistantAdditions(message, uuid);
  const warnings = hook?.warnings ?? [];
  if (hook?.preventContinuation !== undefined) {
    return terminal('stop_hook_prevented', { additions: kept, warnings });
  }
  if (hook?.block !== undefined) {
    if (state.stopHookBlockCount >= STOP_HOOK_BLOCK_CAP) {
      return terminal('completed', {
        additions: kept,
        warnings: [...warnings, `the Stop hook blocked ${STOP_HOOK_BLOCK_CAP} times in a row; ending the turn anyway`],
      });
    }
    if (state.turnCount + 1 > config.maxTurns) return terminal('max_turns', { additions: kept, warnings });
    const { additions, next } = followUp(state, kept, hook.block, 'stop_hook_feedback', false, config);
    return { type: 'continue', state: stopHookBlocking(state, next), additions, warnings };
  }

  const budget = config.tokenBudget;
  if (budget !== undefined && !config.isSubagent && kept.length > 0) {
    const used = state.turnOutputTokens;
    const increments = state.tokenBudgetIncrements;
    const diminishing =
      state.tokenBudgetContinuations >= 3 &&
      increments.length >= 2 &&
      increments.slice(-2).every((n) => n < 500);
    if (used < budget * 0.9 && !diminishing) {
      const additions = [...kept, userAddition(userText(tokenBudgetText(used, budget)), config.newId(), 'token_budget', true)];
      const increment = message.usage.output_tokens ?? 0;
      return {
        type: 'continue',
        state: tokenBudgetContinuation(state, appendAll(state, additions), increment),
        additions,
        warnings,
      };
    }
  }
  return terminal('completed', { additions: kept, warnings });
}
