/**
 * Pure helpers over messages and the texts the loop adds to the conversation (our own wording).
 * No RxJS here.
 */
import { errorResult } from '../tools/runToolCall.js';
import type {
  AssistantContentBlock,
  AssistantMessage,
  MessageParam,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
} from '../protocol/content.js';

export type UserMessage = MessageParam & { readonly role: 'user' };

export const CONTINUATION_TEXT =
  'Your previous reply was cut off by the output limit. Pick up exactly where it stopped, ' +
  'without apologising or repeating what you already wrote. If the remaining work is large, ' +
  'split it into smaller steps.';

export const MALFORMED_TOOL_USE_TEXT =
  'Your last reply said it would use a tool, but no complete tool call arrived. ' +
  'If you meant to call a tool, send the call again with its full input; otherwise answer in text.';

export const THINKING_ONLY_NUDGE_TEXT =
  'Your last reply contained only private reasoning and nothing for the user. ' +
  'Please write your answer as visible text.';

export const ORPHAN_RESULT_TEXT = 'The tool call did not finish: the response it belonged to was interrupted.';
export const INTERRUPTED_RESULT_TEXT = 'The user interrupted this tool call.';

export function repeatedCallText(name: string, count: number): string {
  return (
    `You have called ${name} with exactly the same input ${count} times in a row, so it was not run again. ` +
    'The earlier results still apply; change the input or take a different approach.'
  );
}

export function tokenBudgetText(used: number, budget: number): string {
  const left = Math.max(0, budget - used);
  return `Token budget for this turn: ${used} of ${budget} used, ${left} left. Keep working on the task.`;
}

export function userText(text: string): UserMessage {
  return { role: 'user', content: [{ type: 'text', text }] };
}

export function toolUsesOf(message: AssistantMessage): ToolUseBlock[] {
  const uses: ToolUseBlock[] = [];
  for (const block of message.content) if (block.type === 'tool_use') uses.push(block);
  return uses;
}

export function textOf(message: AssistantMessage): string {
  let text = '';
  for (const block of message.content) if (block.type === 'text') text += block.text;
  return text;
}

/**
 * Only thinking (or redacted thinking) and nothing else worth keeping: no visible text, no tool
 * call, no server block (a web search and its result are work the model did, even without text).
 */
export function isThinkingOnly(message: AssistantMessage): boolean {
  let thinking = false;
  for (const block of message.content) {
    if (block.type === 'thinking' || block.type === 'redacted_thinking') thinking = true;
    else if (block.type !== 'text' || block.text.trim() !== '') return false;
  }
  return thinking;
}

function isThinkingBlock(block: AssistantContentBlock): boolean {
  return block.type === 'thinking' || block.type === 'redacted_thinking';
}

/**
 * The assistant message as it may be replayed: no trailing thinking block (the API refuses a
 * thinking block last in a message), no empty text blocks (refused too). Every other block,
 * server tool calls and results, compaction and types newer than this version included, goes
 * back exactly as it arrived (SPEC §14). `undefined` when nothing is left.
 */
export function replayable(message: AssistantMessage): MessageParam | undefined {
  let content: AssistantContentBlock[] = message.content.filter((b) => !(b.type === 'text' && b.text === ''));
  while (content.length > 0 && isThinkingBlock(content[content.length - 1]!)) content = content.slice(0, -1);
  if (content.length === 0) return undefined;
  return { role: 'assistant', content };
}

/** Thinking blocks are bound to the model that signed them: remove them before a model switch. */
export function stripThinking(messages: readonly MessageParam[]): readonly MessageParam[] {
  return messages.map(withoutThinking);
}

/** The message without its thinking blocks; the same object when it has none (no garbage). */
export function withoutThinking(message: MessageParam): MessageParam {
  if (message.role !== 'assistant' || typeof message.content === 'string') return message;
  let thinking = false;
  for (const block of message.content) if (isThinkingBlock(block as AssistantContentBlock)) thinking = true;
  if (!thinking) return message;
  const content = (message.content as AssistantContentBlock[]).filter((b) => !isThinkingBlock(b));
  return { ...message, content: content.length > 0 ? content : [{ type: 'text', text: '(no visible content)' }] } as MessageParam;
}

/** Results in tool_use order; a tool_use with no result gets a synthetic error result. */
export function completeResults(
  toolUses: readonly ToolUseBlock[],
  results: ReadonlyMap<string, ToolResultBlock>,
  missingText: string,
): ToolResultBlock[] {
  return toolUses.map((use) => results.get(use.id) ?? errorResult(use.id, missingText));
}

/** Append a text block to the last user message (a nudge that does not add a turn). */
export function appendToLastUser(messages: readonly MessageParam[], text: string): MessageParam[] {
  return appendBlocksToLastUser(messages, [{ type: 'text', text }]);
}

/** Roles must alternate: text for the model after a user message joins that message. */
export function appendBlocksToLastUser(messages: readonly MessageParam[], blocks: readonly TextBlock[]): MessageParam[] {
  const last = messages[messages.length - 1];
  if (!last || last.role !== 'user') return [...messages, { role: 'user', content: [...blocks] }];
  const content = typeof last.content === 'string' ? [{ type: 'text' as const, text: last.content }, ...blocks] : [...last.content, ...blocks];
  return [...messages.slice(0, -1), { ...last, content }];
}

/**
 * Hook texts (PreToolUse/PostToolUse `additionalContext`) as text blocks for the user message
 * that carries the results, after the tool_result blocks, each naming the call it is about.
 */
export function hookContextBlocks(
  context: readonly { readonly toolUseId: string; readonly text: string }[] | undefined,
  toolUses: readonly ToolUseBlock[],
): TextBlock[] {
  if (!context || context.length === 0) return [];
  const names = new Map(toolUses.map((use) => [use.id, use.name] as const));
  return context.map(({ toolUseId, text }) => {
    const name = names.get(toolUseId);
    return { type: 'text', text: `Note from a hook about the ${name ? `${name} call` : 'tool call'} ${toolUseId}:\n${text}` };
  });
}

export function toolResultsMessage(results: readonly ToolResultBlock[], extra: readonly TextBlock[] = []): UserMessage {
  return { role: 'user', content: [...results, ...extra] };
}

/**
 * The history as the API accepts it: user messages in a row (a resumed history that ended with
 * a user message, then a new prompt) are joined into one, since roles must alternate. Returns
 * the same array when nothing needs joining, so the usual request costs one scan and no copy.
 */
export function joinConsecutiveUsers(messages: readonly MessageParam[]): readonly MessageParam[] {
  let i = 1;
  while (i < messages.length && !(messages[i]!.role === 'user' && messages[i - 1]!.role === 'user')) i++;
  if (i >= messages.length) return messages;
  const out: MessageParam[] = messages.slice(0, i - 1);
  let current: MessageParam = messages[i - 1]!;
  for (let k = i; k < messages.length; k++) {
    const next = messages[k]!;
    if (next.role === 'user' && current.role === 'user') {
      current = joinUsers(current, next);
    } else {
      out.push(current);
      current = next;
    }
  }
  out.push(current);
  return out;
}

/** Two consecutive user messages as one (the API wants roles to alternate). */
export function joinUsers(first: MessageParam, second: MessageParam): MessageParam {
  return { ...first, content: [...blocksOf(first), ...blocksOf(second)] };
}

function blocksOf(message: MessageParam): Exclude<MessageParam['content'], string> {
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}
