/**
 * SPEC §2 step 8: the response finished with tools and every result is in. In order: a hook
 * stopped continuation -> `hook_stopped`; a result ends the turn -> PostToolBatch, `completed`;
 * PostToolBatch blocks -> `hook_stopped`; queued input joins the results; the next iteration
 * would exceed `maxTurns` -> `max_turns`; else `next_turn`. (Aborts are decided before this.)
 */
import type { AssistantMessage, TextBlock, ToolUseBlock } from '../protocol/content.js';
import type { HookDecision } from './seams.js';
import { appendAll, assistantAddition, terminal, userAddition, type Addition, type DecideConfig, type Decision, type ToolBatch } from './decision.js';
import { hookContextBlocks, replayable, toolResultsMessage, toolUsesOf } from './messages.js';
import { nextTurn } from './transitions.js';
import type { LoopState } from './types.js';

/**
 * Assistant message plus one user message with the results, then the hooks' additional context
 * (as text blocks, in tool_use order), then any queued input.
 */
export function batchAdditions(
  message: AssistantMessage,
  uuid: string,
  batch: ToolBatch,
  queued: readonly TextBlock[],
  newId: () => string,
): Addition[] {
  // A message with tool_use blocks always stays replayable (its last block is never thinking).
  const replay = replayable(message) ?? { role: 'assistant' as const, content: message.content };
  const context = hookContextBlocks(batch.additionalContext, toolUsesOf(message));
  const extra = context.length === 0 ? queued : [...context, ...queued];
  return [
    assistantAddition(replay, uuid, message),
    userAddition(toolResultsMessage(batch.results, extra), newId(), queued.length > 0 ? 'queued_input' : 'tool_results', false),
  ];
}

export function decideWithTools(
  state: LoopState,
  message: AssistantMessage,
  uuid: string,
  batch: ToolBatch,
  config: DecideConfig,
): Decision {
  const deferred = batch.deferred && deferredCall(message, batch.deferred.toolUseId);
  if (deferred) {
    // The call did not run and gets no result: the history ends with the assistant message
    // holding it, and the caller supplies the result when resuming (SPEC §3, controlled).
    const replay = replayable(message) ?? { role: 'assistant' as const, content: message.content };
    return terminal('tool_deferred', { additions: [assistantAddition(replay, uuid, message)], deferredToolUse: deferred });
  }
  if (batch.stopContinuation) {
    return terminal('hook_stopped', { additions: batchAdditions(message, uuid, batch, [], config.newId) });
  }
  if (config.hasPostToolBatchHook) return { type: 'run_post_tool_batch' };
  return decideAfterPostToolBatch(state, message, uuid, batch, undefined, [], config);
}

/** The deferred call, when it is the response's only one (otherwise its placeholder result stands). */
function deferredCall(message: AssistantMessage, toolUseId: string): ToolUseBlock | undefined {
  const uses = toolUsesOf(message);
  return uses.length === 1 && uses[0]!.id === toolUseId ? uses[0] : undefined;
}

export function decideAfterPostToolBatch(
  state: LoopState,
  message: AssistantMessage,
  uuid: string,
  batch: ToolBatch,
  hook: HookDecision | undefined,
  queued: readonly TextBlock[],
  config: DecideConfig,
): Decision {
  const warnings = hook?.warnings ?? [];
  if (batch.endsTurn) {
    // The turn ends anyway: a blocking PostToolBatch decision has nothing left to stop.
    return terminal('completed', { additions: batchAdditions(message, uuid, batch, [], config.newId), warnings });
  }
  if (hook?.block !== undefined || hook?.preventContinuation !== undefined) {
    return terminal('hook_stopped', { additions: batchAdditions(message, uuid, batch, [], config.newId), warnings });
  }
  const additions = batchAdditions(message, uuid, batch, queued, config.newId);
  if (state.turnCount + 1 > config.maxTurns) return terminal('max_turns', { additions, warnings });
  return { type: 'continue', state: nextTurn(state, appendAll(state, additions), batch.shared), additions, warnings };
}
