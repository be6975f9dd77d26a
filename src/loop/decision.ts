/** What the decide functions return, and the history bookkeeping they share. Pure. */
import type { AssistantMessage, MessageParam, ToolUseBlock } from '../protocol/content.js';
import type { ToolEvent } from '../tools/types.js';
import type { Appended } from './transitions.js';
import type { LoopError, LoopState, TerminalReason, UserMessageReason } from './types.js';

export type ToolBatch = Extract<ToolEvent, { type: 'tool_batch' }>;

/** A message added to the history by a decision, reported as an event. */
export interface Addition {
  readonly message: MessageParam;
  readonly uuid: string;
  /** For user messages. */
  readonly reason: UserMessageReason | undefined;
  readonly isMeta: boolean;
  /** For assistant messages: the response they come from (id, model, usage) for transcripts. */
  readonly source?: AssistantMessage;
}

export type Decision =
  | {
      readonly type: 'terminal';
      readonly reason: TerminalReason;
      readonly error?: LoopError;
      readonly additions: readonly Addition[];
      readonly warnings: readonly string[];
      readonly deferredToolUse?: ToolUseBlock;
    }
  | { readonly type: 'continue'; readonly state: LoopState; readonly additions: readonly Addition[]; readonly warnings: readonly string[] }
  /** Ask the Stop hook, then call `decideAfterStopHook`. */
  | { readonly type: 'run_stop_hook' }
  /** Ask the PostToolBatch hook, then call `decideAfterPostToolBatch`. */
  | { readonly type: 'run_post_tool_batch' };

export interface DecideConfig {
  readonly maxTurns: number;
  readonly hasStopHook: boolean;
  readonly hasPostToolBatchHook: boolean;
  readonly tokenBudget: number | undefined;
  readonly isSubagent: boolean;
  readonly newId: () => string;
}

export function terminal(
  reason: TerminalReason,
  extra: { error?: LoopError; additions?: readonly Addition[]; warnings?: readonly string[]; deferredToolUse?: ToolUseBlock } = {},
): Decision {
  return {
    type: 'terminal',
    reason,
    ...(extra.error ? { error: extra.error } : {}),
    ...(extra.deferredToolUse ? { deferredToolUse: extra.deferredToolUse } : {}),
    additions: extra.additions ?? [],
    warnings: extra.warnings ?? [],
  };
}

/**
 * One copy of the history per continue site (the request needs the array anyway). An assistant
 * message right after an assistant message (the continuation of a `pause_turn`) joins it: it is
 * the same turn of the model, and roles must alternate.
 */
export function appendAll(state: LoopState, additions: readonly Addition[]): Appended {
  if (additions.length === 0) return { messages: state.messages, lastUuid: state.lastMessageUuid };
  const last = state.messages[state.messages.length - 1];
  const first = additions[0]!.message;
  const joins = last?.role === 'assistant' && first.role === 'assistant' && Array.isArray(last.content) && Array.isArray(first.content);
  const head = joins ? state.messages.slice(0, -1) : state.messages;
  const added = additions.map((a) => a.message);
  if (joins) added[0] = { ...last, content: [...(last.content as unknown[]), ...(first.content as unknown[])] } as MessageParam;
  return { messages: [...head, ...added], lastUuid: additions[additions.length - 1]!.uuid };
}

export function assistantAddition(message: MessageParam, uuid: string, source: AssistantMessage): Addition {
  return { message, uuid, reason: undefined, isMeta: false, source };
}

export function userAddition(message: MessageParam, uuid: string, reason: UserMessageReason, isMeta: boolean): Addition {
  return { message, uuid, reason, isMeta };
}
