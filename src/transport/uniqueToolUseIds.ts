/**
 * Duplicate `tool_use` ids within one response, made unique where the stream is decoded.
 *
 * Seen from proxies and non-Anthropic backends: two `tool_use` blocks of one message carrying the
 * same id. Every later stage keys on the id (the scheduler's running calls, the pairing of a
 * tool_result with its call, the next request, which the API refuses when an id repeats). Renaming
 * at the decoder means no later stage ever sees two calls under one name: each gets its own
 * result, and the assistant message sent back carries the new ids, so the pairing stays valid.
 *
 * The second use of `x` becomes `x__dup2`, the third `x__dup3`, ... (skipping any name the
 * message already used; `_` keeps it within the API's id alphabet `[A-Za-z0-9_-]`). Only client
 * `tool_use` blocks: a server tool call's id is paired with its result block by the server, in
 * the same message, and must stay as sent.
 *
 * An id reused from an EARLIER turn is a repeat too: the request this response answers carries
 * the history, and the next request would hold two tool_use blocks under one id. The ids of the
 * history's tool_use blocks are `taken` from the start of every message (see
 * `toolUseIdsOf`), so the reuse is renamed the same way.
 */
import type { MessageParam } from '../protocol/content.js';
import type { ContentBlockStartEvent, MessageStartEvent } from '../protocol/events.js';
import type { DebugEvent } from './types.js';

/** Per message: the ids seen so far. A `message_start` begins a fresh one (a retry, too). */
export interface ToolUseIdRegistry {
  /** Returns the event itself, or a copy with the renamed block plus the note saying so. */
  onBlockStart(event: ContentBlockStartEvent): { readonly event: ContentBlockStartEvent; readonly note?: DebugEvent };
  /** Resets, then registers (and renames) the complete blocks a `message_start` may carry. */
  onMessageStart(event: MessageStartEvent): { readonly event: MessageStartEvent; readonly notes: readonly DebugEvent[] };
}

/** `taken`: ids the conversation already used (the request's history), never given out again. */
export function createToolUseIdRegistry(taken: ReadonlySet<string> = NO_IDS): ToolUseIdRegistry {
  // The message's own ids beside `taken`, which is looked into, never copied: at turn 1000 the
  // history holds ~1000 ids, and copying them twice per request grew each iteration's cost.
  let seen = new Set<string>();
  const used = (id: string): boolean => seen.has(id) || taken.has(id);

  /** The id to use for a call announced as `id`: itself the first time, else the next free `__dupN`. */
  function claim(id: string): string {
    if (!used(id)) {
      seen.add(id);
      return id;
    }
    let n = 2;
    while (used(`${id}__dup${n}`)) n++;
    const renamed = `${id}__dup${n}`;
    seen.add(renamed);
    return renamed;
  }

  function note(id: string, renamed: string, index: number): DebugEvent {
    const where = taken.has(id) ? 'already used by an earlier turn' : 'in one response';
    return {
      type: 'debug',
      message: `duplicate tool_use id "${id}" ${where}; the block at index ${index} is renamed "${renamed}"`,
      data: { id, renamed, index },
    };
  }

  return {
    onBlockStart(event) {
      const block = event.content_block;
      if (block.type !== 'tool_use') return { event };
      const renamed = claim(block.id);
      if (renamed === block.id) return { event };
      return { event: { ...event, content_block: { ...block, id: renamed } }, note: note(block.id, renamed, event.index) };
    },
    onMessageStart(event) {
      seen = new Set();
      const content = event.message.content;
      if (content.length === 0) return { event, notes: [] };
      const notes: DebugEvent[] = [];
      const renamedContent = content.map((block, index) => {
        if (block.type !== 'tool_use') return block;
        const renamed = claim(block.id);
        if (renamed === block.id) return block;
        notes.push(note(block.id, renamed, index));
        return { ...block, id: renamed };
      });
      if (notes.length === 0) return { event, notes };
      return { event: { ...event, message: { ...event.message, content: renamedContent } }, notes };
    },
  };
}

const NO_IDS: ReadonlySet<string> = new Set();

/**
 * The tool_use ids of a conversation's messages, grown as its history grows: `items` are the
 * messages read so far, `firstIndex` maps each id to the index of the first message holding it.
 * Only ever appended to (an item may be swapped for a copy holding the same tool_use ids, which
 * leaves `firstIndex` as it is): a request whose messages are `items`' first n answers from it
 * with the ids whose first index is below n, whatever was appended after; a history that changed
 * before its end gets a new one (requests already holding the old one keep a consistent view).
 */
interface IdHistory {
  readonly items: object[];
  readonly firstIndex: Map<string, number>;
}

/** Keyed by the conversation's first message (messages are never changed in place, see requestBody.ts). */
const histories = new WeakMap<object, IdHistory>();

/**
 * The ids of every `tool_use` block in `messages` (a request's history): what a response to that
 * request must not use again. Each message is read once per conversation: a request costs a
 * look at which of its messages are the ones already read (an identity compare) plus reading
 * the new ones; reading the whole history on every request grew each iteration's cost with it.
 */
export function toolUseIdsOf(messages: readonly MessageParam[]): ReadonlySet<string> {
  const head: unknown = messages[0];
  let history: IdHistory | undefined;
  if (typeof head === 'object' && head !== null) {
    history = histories.get(head);
    let same = 0;
    if (history !== undefined) {
      const shared = Math.min(history.items.length, messages.length);
      const items = history.items;
      for (; same < shared; same++) {
        if (items[same] === messages[same]) continue;
        // A copy with the same calls (a request marks its last message with a cache breakpoint,
        // the next one sends the original): the ids' first indices stay what they are, so the
        // history goes on with the new object; any other change starts a new history.
        if (!sameToolUseIds(items[same] as MessageParam, messages[same]!)) break;
        items[same] = messages[same]!;
      }
      if (same < history.items.length && same < messages.length) history = undefined; // changed before its end
    }
    if (history === undefined) {
      history = { items: [], firstIndex: new Map() };
      histories.set(head, history);
    }
  } else {
    history = { items: [], firstIndex: new Map() }; // nothing to key it by: read it whole
  }
  for (let i = history.items.length; i < messages.length; i++) {
    const message = messages[i]!;
    for (const id of toolUseIdList(message)) if (!history.firstIndex.has(id)) history.firstIndex.set(id, i);
    history.items.push(message);
  }
  return new HistoryToolUseIds(history.firstIndex, messages.length);
}

/** Whether two messages hold the same tool_use ids in the same order (none, for a user message). */
function sameToolUseIds(a: MessageParam, b: MessageParam): boolean {
  const x = toolUseIdList(a);
  const y = toolUseIdList(b);
  return x.length === y.length && x.every((id, i) => id === y[i]);
}

/** The ids of a message's tool_use blocks, in order (none for a user message). */
function toolUseIdList(message: MessageParam): string[] {
  if (message.role !== 'assistant' || typeof message.content === 'string') return [];
  const ids: string[] = [];
  for (const block of message.content) if (block.type === 'tool_use') ids.push(block.id);
  return ids;
}

/** A read-only set of the ids first used below `limit` in a conversation's `firstIndex`. */
class HistoryToolUseIds implements ReadonlySet<string> {
  #set: Set<string> | undefined;

  constructor(
    private readonly firstIndex: ReadonlyMap<string, number>,
    private readonly limit: number,
  ) {}

  has(id: string): boolean {
    const index = this.firstIndex.get(id);
    return index !== undefined && index < this.limit;
  }

  get size(): number {
    return this.#all().size;
  }

  forEach(callback: (value: string, key: string, set: ReadonlySet<string>) => void, thisArg?: unknown): void {
    for (const id of this.#all()) callback.call(thisArg, id, id, this);
  }

  entries(): SetIterator<[string, string]> {
    return this.#all().entries();
  }

  keys(): SetIterator<string> {
    return this.#all().keys();
  }

  values(): SetIterator<string> {
    return this.#all().values();
  }

  [Symbol.iterator](): SetIterator<string> {
    return this.#all()[Symbol.iterator]();
  }

  /** In the order of first use, as a set built from the history's blocks in order would be. */
  #all(): Set<string> {
    if (this.#set === undefined) {
      this.#set = new Set();
      for (const [id, index] of this.firstIndex) if (index < this.limit) this.#set.add(id);
    }
    return this.#set;
  }
}
