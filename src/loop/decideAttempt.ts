/**
 * After the model phase: what the attempt's data means for the run, as a `Decision`. Pure; the
 * queue's content and the abort/interrupt facts come in as arguments. Hooks are not run here:
 * `run_stop_hook` / `run_post_tool_batch` come back to `resolveHooks` (src/loop/hooks.ts).
 */
import type { AssistantMessage, TextBlock } from '../protocol/content.js';
import { appendAll, assistantAddition, terminal, userAddition, type Addition, type DecideConfig, type Decision, type ToolBatch } from './decision.js';
import { decideNoTools } from './decideNoTools.js';
import { decideOnError } from './decideOnError.js';
import { decideWithTools } from './decideWithTools.js';
import type { Attempt } from './foldAttempt.js';
import { appendBlocksToLastUser, completeResults, INTERRUPTED_RESULT_TEXT, ORPHAN_RESULT_TEXT, replayable, toolResultsMessage } from './messages.js';
import { nextTurn } from './transitions.js';
import type { LoopError } from './types.js';

/** How the model phase ended, besides the attempt's own data. */
export interface AttemptEnding {
  /** The caller's signal aborted the run. */
  readonly aborted: boolean;
  /** An interrupting submission cut the iteration; its content (absorbed) goes on as input. */
  readonly interrupted: { readonly queued: readonly TextBlock[] } | undefined;
  /** The error the attempt ended with, if any. */
  readonly error: { readonly error: unknown } | undefined;
  /** Why reactive compaction could not help (for a prompt-too-long terminal). */
  readonly compactFailure: string | undefined;
}

export function decideAttempt(attempt: Attempt, ending: AttemptEnding, config: DecideConfig): Decision {
  const state = attempt.state;
  const abortedReason = attempt.message ? 'aborted_tools' : 'aborted_streaming';
  if (ending.aborted) return terminal(abortedReason, { additions: orphanAdditions(attempt, ORPHAN_RESULT_TEXT, config.newId) });
  if (ending.interrupted) {
    // The submission itself is the context: no "interrupted" message, just its content.
    const additions = orphanAdditions(attempt, INTERRUPTED_RESULT_TEXT, config.newId);
    const queued = ending.interrupted.queued;
    if (queued.length === 0) return terminal(abortedReason, { additions });
    if (additions.length === 0) {
      // Nothing of the response survives: the input joins the last user message.
      const addition = userAddition({ role: 'user', content: [...queued] }, config.newId(), 'queued_input', false);
      if (state.turnCount + 1 > config.maxTurns) return terminal('max_turns', { additions: [] });
      const messages = appendBlocksToLastUser(state.messages, queued);
      return { type: 'continue', state: nextTurn(state, { messages, lastUuid: addition.uuid }, state.shared), additions: [addition], warnings: [] };
    }
    const last = additions[additions.length - 1];
    if (last && last.message.role === 'user' && Array.isArray(last.message.content)) {
      additions[additions.length - 1] = { ...last, reason: 'queued_input', message: { role: 'user', content: [...last.message.content, ...queued] } };
    } else {
      additions.push(userAddition({ role: 'user', content: [...queued] }, config.newId(), 'queued_input', false));
    }
    if (state.turnCount + 1 > config.maxTurns) return terminal('max_turns', { additions });
    return { type: 'continue', state: nextTurn(state, appendAll(state, additions), state.shared), additions, warnings: [] };
  }
  if (ending.error !== undefined || !attempt.message) {
    const decided =
      ending.error !== undefined
        ? decideOnError(ending.error.error)
        : { reason: 'model_error' as const, error: { kind: 'internal' as const, message: 'the response ended without a message' } };
    const error = decided.reason === 'prompt_too_long' && ending.compactFailure !== undefined ? explained(decided.error, ending.compactFailure) : decided.error;
    return terminal(decided.reason, { error, additions: orphanAdditions(attempt, ORPHAN_RESULT_TEXT, config.newId) });
  }
  const uuid = attempt.messageUuid ?? config.newId();
  if (attempt.toolUses.length > 0) return decideWithTools(state, attempt.message, uuid, batchOf(attempt), config);
  return decideNoTools(state, attempt.message, uuid, config);
}

/** The attempt's batch; one of synthetic results when the scheduler gave none (e.g. no tools configured). */
export function batchOf(attempt: Attempt): ToolBatch {
  return (
    attempt.batch ?? {
      type: 'tool_batch',
      results: completeResults(attempt.toolUses, attempt.results, ORPHAN_RESULT_TEXT),
      endsTurn: false,
      shared: attempt.state.shared,
    }
  );
}

/** The partial (or complete) assistant message plus results for every tool_use, real or synthetic. */
function orphanAdditions(attempt: Attempt, missingText: string, newId: () => string): Addition[] {
  const source: AssistantMessage = attempt.message ?? {
    id: attempt.messageUuid ?? 'partial',
    type: 'message',
    role: 'assistant',
    model: attempt.state.model,
    content: [...attempt.blocks],
    stop_reason: null,
    usage: {},
  };
  // Replayable: no empty text, no trailing thinking (a message with tool calls keeps them).
  const replay = replayable(source);
  if (!replay) return [];
  const additions: Addition[] = [assistantAddition(replay, attempt.messageUuid ?? newId(), source)];
  if (attempt.toolUses.length > 0) {
    const have = new Map(attempt.results);
    for (const r of attempt.batch?.results ?? []) have.set(r.tool_use_id, r);
    additions.push(userAddition(toolResultsMessage(completeResults(attempt.toolUses, have, missingText)), newId(), 'orphan_results', false));
  }
  return additions;
}

/** The API's prompt-too-long error with the reason compaction could not help (status kept). */
function explained(error: LoopError, why: string): LoopError {
  return { ...error, message: why.includes(error.message) ? why : `${error.message}. ${why}` };
}
