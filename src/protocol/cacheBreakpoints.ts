/**
 * Prompt-caching breakpoints as Claude Code places them (SPEC §14): `cache_control: {type:
 * "ephemeral"}` on the system prompt, on the last tool (which caches every tool definition) and
 * on the last block of the last message, so each turn's request reads the previous turn's prefix
 * from the cache and writes the new part; the message breakpoint moves forward every turn.
 *
 * The API allows at most 4 breakpoints per request: breakpoints the caller placed count, and ours
 * are added only while there is room (the message one first, since it saves the most). Pure: the
 * history is never changed, only the request built from it.
 */
import type { ContentBlock, MessageParam, TextBlock } from './content.js';
import type { MessagesRequest, ToolDefinition } from './request.js';

/** The API's limit on `cache_control` blocks in one request. */
export const MAX_CACHE_BREAKPOINTS = 4;

const EPHEMERAL = { type: 'ephemeral' } as const;

/** Blocks the API lets carry `cache_control` (thinking blocks are cached with their turn, not marked). */
const MARKABLE: ReadonlySet<string> = new Set(['text', 'image', 'document', 'tool_use', 'tool_result', 'search_result', 'server_tool_use']);

/**
 * `request` with breakpoints on the last message, the tools and the system prompt, within the
 * limit. `known.messageBreakpoints`, when the caller already counted the ones in the messages
 * (the loop keeps that count as its history grows), spares a walk over the whole history.
 */
export function withCacheBreakpoints(request: MessagesRequest, known?: { readonly messageBreakpoints: number }): MessagesRequest {
  const inMessages = known?.messageBreakpoints ?? request.messages.reduce((n, m) => n + messageBreakpoints(m), 0);
  let room = MAX_CACHE_BREAKPOINTS - breakpointsOutsideMessages(request) - inMessages;
  if (room <= 0) return request;
  const out: MessagesRequest = { ...request };
  const messages = markLastMessage(request.messages);
  if (messages !== undefined) {
    out.messages = messages;
    room--;
  }
  if (room > 0 && request.tools !== undefined && request.tools.length > 0 && !request.tools.some(hasBreakpoint)) {
    const last = request.tools[request.tools.length - 1]!;
    out.tools = [...request.tools.slice(0, -1), { ...last, cache_control: EPHEMERAL } as ToolDefinition];
    room--;
  }
  if (room > 0 && request.system !== undefined && request.system !== '') {
    const system = markSystem(request.system);
    if (system !== undefined) out.system = system;
  }
  return out;
}

function markSystem(system: string | readonly TextBlock[]): TextBlock[] | undefined {
  if (typeof system === 'string') return [{ type: 'text', text: system, cache_control: EPHEMERAL }];
  if (system.length === 0 || system.some(hasBreakpoint)) return undefined;
  const last = system[system.length - 1]!;
  return [...system.slice(0, -1), { ...last, cache_control: EPHEMERAL }];
}

/** The history with the last markable block of its last message marked; undefined when none is. */
function markLastMessage(messages: readonly MessageParam[]): MessageParam[] | undefined {
  const last = messages[messages.length - 1];
  if (last === undefined) return undefined;
  let content: ContentBlock[];
  if (typeof last.content === 'string') {
    if (last.content === '') return undefined;
    content = [{ type: 'text', text: last.content, cache_control: EPHEMERAL }];
  } else {
    if (last.content.some(hasBreakpoint)) return undefined;
    const at = findLastIndex(last.content, (b) => MARKABLE.has(b.type) && !(b.type === 'text' && b.text === ''));
    if (at < 0) return undefined;
    content = [...last.content];
    content[at] = { ...last.content[at]!, cache_control: EPHEMERAL } as ContentBlock;
  }
  // One copy of the history per request (it is long in a long run), not a slice and a spread.
  const out = messages.slice();
  out[out.length - 1] = { ...last, content } as MessageParam;
  return out;
}

function findLastIndex<T>(items: readonly T[], test: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (test(items[i]!)) return i;
  return -1;
}

function hasBreakpoint(item: object): boolean {
  return (item as { cache_control?: unknown }).cache_control !== undefined;
}

/** Breakpoints already in the request (system, tools, message blocks and blocks nested in tool results). */
export function countBreakpoints(request: MessagesRequest): number {
  return request.messages.reduce((n, m) => n + messageBreakpoints(m), breakpointsOutsideMessages(request));
}

/** Breakpoints in one message's blocks and in the blocks nested in its tool results. */
export function messageBreakpoints(message: MessageParam): number {
  if (!Array.isArray(message.content)) return 0;
  let count = 0;
  for (const block of message.content) count += blockBreakpoints(block);
  return count;
}

function breakpointsOutsideMessages(request: MessagesRequest): number {
  let count = 0;
  if (Array.isArray(request.system)) for (const b of request.system) count += blockBreakpoints(b);
  for (const tool of request.tools ?? []) count += blockBreakpoints(tool);
  return count;
}

function blockBreakpoints(block: object): number {
  let count = hasBreakpoint(block) ? 1 : 0;
  const nested = (block as { type?: unknown; content?: unknown }).content;
  if ((block as { type?: unknown }).type === 'tool_result' && Array.isArray(nested)) for (const b of nested) count += blockBreakpoints(b as object);
  return count;
}
