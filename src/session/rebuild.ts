/**
 * From transcript records to the message view the next model request is built from. Pure.
 *
 * 1. Follow the chain from the last record back through `parentUuid` (a missing parent — its
 *    line was skipped as corrupt — continues from the record before it in file order, warned).
 * 2. Start after the last `compact_boundary` of the chain: its `summary` records and what follows.
 * 3. Drop tombstoned records.
 * 4. Make the view a valid request: assistant messages lose trailing thinking blocks and empty
 *    text blocks (as the loop replays them; a thinking-only reply disappears), consecutive same-role messages are merged (tool_result blocks
 *    first), tool_results that answer no tool_use of the assistant message before them are
 *    dropped, and a tool_use left unanswered (a turn cut off mid-tool) gets a synthetic error
 *    result. A view that would open with an assistant message gets a placeholder user message.
 *
 * There is no "incomplete trailing assistant message" to drop: records are appended only when a
 * message is complete, and a partial line is skipped by the parser. A turn cut off mid-stream
 * simply has no assistant record.
 *
 * Cost is linear in the number of records and blocks; content arrays are only copied for the
 * messages that are merged or repaired.
 */
import type { ContentBlock, MessageParam, ToolResultBlock } from '../protocol/content.js';
import { isMessageRecord, type CompactBoundaryRecord, type SessionRecord } from './records.js';
import type { SessionWarning } from './warnings.js';

/** The content of every synthetic tool_result (our own wording). */
export const SESSION_ENDED_TOOL_RESULT =
  'Tool execution did not finish: the session ended before this tool returned a result. Check the current state before relying on its effects.';

const EARLIER_CONVERSATION_UNAVAILABLE = '[The earlier part of this conversation could not be restored.]';

/** A message whose role is 'user' (what the rebuilt view appends after a cut-off tool call). */
export type UserMessageParam = MessageParam & { readonly role: 'user' };

/** The conversation a transcript leads to: the messages to send next. */
export interface RebuiltView {
  /** Alternating user/assistant messages, first one `user`, every tool_use answered. */
  readonly messages: MessageParam[];
  /** Per message (same index): the uuid of the last record merged into it, or `synthetic:<uuid>`. */
  readonly messageUuids: string[];
  /** The last record of the chain: the parent of whatever is appended next (null: empty session). */
  readonly leafUuid: string | null;
  /**
   * Synthetic results for the last assistant message's unanswered tool_uses (the turn cut off
   * mid-tool), already included in `messages`. `resume` persists it, so the transcript and the
   * view agree from then on.
   */
  readonly tailRepair: UserMessageParam | undefined;
  /** The boundary the view starts from, when there is one. */
  readonly compactBoundary: CompactBoundaryRecord | undefined;
  readonly warnings: SessionWarning[];
}

/** Rebuilds the message history from transcript records (following the chain, compaction and tombstones). */
export function rebuildMessages(records: readonly SessionRecord[]): RebuiltView {
  const warnings: SessionWarning[] = [];
  const chain = followChain(records, warnings);

  let start = 0;
  let compactBoundary: CompactBoundaryRecord | undefined;
  const tombstoned = new Set<string>();
  for (let i = 0; i < chain.length; i++) {
    const record = chain[i]!;
    if (record.type === 'compact_boundary') {
      start = i + 1;
      compactBoundary = record;
    } else if (record.type === 'tombstone') {
      for (const uuid of record.uuids) tombstoned.add(uuid);
    }
  }

  const view = new ViewBuilder(warnings);
  for (let i = start; i < chain.length; i++) {
    const record = chain[i]!;
    if (!isMessageRecord(record) || tombstoned.has(record.uuid)) continue;
    if (record.message.role === 'assistant') view.addAssistant(record.message, record.uuid);
    else view.addUser(record.message, record.uuid);
  }
  const tailRepair = view.answerOpenToolUses('tail');
  view.ensureUserFirst();

  return {
    messages: view.messages,
    messageUuids: view.uuids,
    leafUuid: chain.length > 0 ? chain[chain.length - 1]!.uuid : null,
    tailRepair,
    compactBoundary,
    warnings,
  };
}

/**
 * The records of the chain ending at the last record, first to last (a fork copies exactly these).
 * Broken links are warned about and bridged with the record before in file order.
 */
export function followChain(records: readonly SessionRecord[], warnings: SessionWarning[]): SessionRecord[] {
  if (records.length === 0) return [];
  // Built only when a parent is not the record just before (a fork, a rewind, damage): in a
  // transcript written by one run, each record's parent is the line above it.
  let indexOf: Map<string, number> | undefined;
  const parentOf = (uuid: string, at: number): number | undefined => {
    if (at > 0 && records[at - 1]!.uuid === uuid) return at - 1;
    if (indexOf === undefined) {
      indexOf = new Map();
      for (let i = 0; i < records.length; i++) indexOf.set(records[i]!.uuid, i);
    }
    return indexOf.get(uuid);
  };

  const reversed: SessionRecord[] = [];
  let at = records.length - 1;
  for (;;) {
    const record = records[at]!;
    reversed.push(record);
    if (record.parentUuid === null) break;
    const parent = parentOf(record.parentUuid, at);
    // A parent must come earlier in the file; anything else (missing, or a forward reference)
    // is damage. Walking strictly backwards also guarantees termination.
    if (parent !== undefined && parent < at) {
      at = parent;
      continue;
    }
    if (at === 0) break;
    warnings.push({
      kind: 'broken_chain',
      uuid: record.uuid,
      message: `record ${record.uuid} names parent ${record.parentUuid}, which is not in the transcript (a skipped line?); continuing with the record before it`,
    });
    at -= 1;
  }
  return reversed.reverse();
}

class ViewBuilder {
  readonly messages: MessageParam[] = [];
  readonly uuids: string[] = [];
  /** tool_use ids of the last assistant message, in call order, and which were answered. */
  private open: { ids: string[]; answered: Set<string>; assistantUuid: string } | undefined;

  constructor(private readonly warnings: SessionWarning[]) {}

  addAssistant(message: MessageParam, uuid: string): void {
    this.answerOpenToolUses('middle');
    const content = withoutTrailingThinking(withoutEmptyText(message.content));
    if (isEmpty(content)) return;
    const ids = toolUseIds(content);
    const last = this.messages[this.messages.length - 1];
    if (last?.role === 'assistant') {
      // Only possible when the previous assistant message had no tool_use (otherwise an answer
      // was just inserted), so the merged message's open tool_uses are the new ones.
      this.replaceLast({ role: 'assistant', content: [...asBlocks(last.content), ...asBlocks(content)] }, uuid);
    } else {
      this.push(content === message.content ? message : { ...message, content }, uuid);
    }
    this.open = ids.length > 0 ? { ids, answered: new Set(), assistantUuid: uuid } : undefined;
  }

  addUser(message: MessageParam, uuid: string): void {
    let content = withoutEmptyText(message.content);
    if (Array.isArray(content) && content.some((b) => b.type === 'tool_result')) {
      content = content.filter((block) => {
        if (block.type !== 'tool_result') return true;
        const open = this.open;
        if (open?.ids.includes(block.tool_use_id) && !open.answered.has(block.tool_use_id)) {
          open.answered.add(block.tool_use_id);
          return true;
        }
        this.warnings.push({
          kind: 'orphan_tool_result',
          toolUseId: block.tool_use_id,
          message: `dropped a tool_result for ${block.tool_use_id}: it answers no unanswered tool_use of the assistant message before it`,
        });
        return false;
      });
    }
    if (isEmpty(content)) return;
    const last = this.messages[this.messages.length - 1];
    if (last?.role === 'user') this.replaceLast({ role: 'user', content: resultsFirst(asBlocks(last.content), asBlocks(content)) }, uuid);
    else this.push(content === message.content ? message : { ...message, content }, uuid);
  }

  /**
   * Gives every unanswered tool_use of the last assistant message a synthetic error result, in
   * the user message that follows it (created when there is none). Returns the results added.
   */
  answerOpenToolUses(where: 'middle' | 'tail'): UserMessageParam | undefined {
    const open = this.open;
    this.open = undefined;
    if (!open) return undefined;
    const missing = open.ids.filter((id) => !open.answered.has(id));
    if (missing.length === 0) return undefined;
    const results: ToolResultBlock[] = missing.map((id) => {
      this.warnings.push({
        kind: 'synthetic_tool_result',
        toolUseId: id,
        message: `tool_use ${id} has no result${where === 'tail' ? ' (the session ended while it ran)' : ''}; added an error result`,
      });
      return { type: 'tool_result', tool_use_id: id, content: SESSION_ENDED_TOOL_RESULT, is_error: true };
    });
    const last = this.messages[this.messages.length - 1];
    if (last?.role === 'user') {
      this.replaceLast({ role: 'user', content: resultsFirst(asBlocks(last.content), results) }, this.uuids[this.uuids.length - 1]!);
    } else {
      this.push({ role: 'user', content: results }, `synthetic:${open.assistantUuid}`);
    }
    return { role: 'user', content: results };
  }

  ensureUserFirst(): void {
    if (this.messages[0]?.role !== 'assistant') return;
    this.warnings.push({
      kind: 'repaired_view',
      message: 'the restored conversation starts with an assistant message; a placeholder user message was put before it',
    });
    this.messages.unshift({ role: 'user', content: EARLIER_CONVERSATION_UNAVAILABLE });
    this.uuids.unshift('synthetic:start');
  }

  private push(message: MessageParam, uuid: string): void {
    this.messages.push(message);
    this.uuids.push(uuid);
  }

  private replaceLast(message: MessageParam, uuid: string): void {
    this.messages[this.messages.length - 1] = message;
    this.uuids[this.uuids.length - 1] = uuid;
  }
}

function toolUseIds(content: MessageParam['content']): string[] {
  if (!Array.isArray(content)) return [];
  const ids: string[] = [];
  for (const block of content) if (block.type === 'tool_use') ids.push(block.id);
  return ids;
}

function asBlocks(content: MessageParam['content']): readonly ContentBlock[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : content;
}

/** Merged user content: all tool_result blocks first (the API requires it), then the rest, each in order. */
function resultsFirst(a: readonly ContentBlock[], b: readonly ContentBlock[]): ContentBlock[] {
  const results: ContentBlock[] = [];
  const rest: ContentBlock[] = [];
  for (const block of [...a, ...b]) (block.type === 'tool_result' ? results : rest).push(block);
  return [...results, ...rest];
}

/** The API rejects empty text blocks; one can only come from a damaged or hand-edited record. */
function withoutEmptyText(content: MessageParam['content']): MessageParam['content'] {
  if (typeof content === 'string' || !content.some((b) => b.type === 'text' && b.text === '')) return content;
  return content.filter((b) => !(b.type === 'text' && b.text === ''));
}

/**
 * The API refuses a thinking block last in an assistant message; the loop replays assistant
 * messages without it (and drops a thinking-only reply), so the rebuilt view does the same.
 */
function withoutTrailingThinking(content: MessageParam['content']): MessageParam['content'] {
  if (typeof content === 'string') return content;
  let end = content.length;
  while (end > 0 && (content[end - 1]!.type === 'thinking' || content[end - 1]!.type === 'redacted_thinking')) end--;
  return end === content.length ? content : content.slice(0, end);
}

function isEmpty(content: MessageParam['content']): boolean {
  return typeof content === 'string' ? content === '' : content.length === 0;
}
