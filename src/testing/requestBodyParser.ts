/**
 * Parses `POST /v1/messages` bodies for the scripted server, reusing the previous request of the
 * same conversation.
 *
 * An agent's request n+1 repeats request n's messages and adds one or two: at turn 1000 with 2 KB
 * tool results that is ~2 MB re-sent, and decoding plus `JSON.parse` of it was most of the wall
 * time of an iteration over loopback. So each body's bytes are kept with where each element of
 * its `messages` array ends; when a new body's bytes are identical to a kept one up to the end
 * of some message, those messages are reused as parsed and only the rest is decoded and parsed.
 *
 * Exactness: the result is what `JSON.parse` of the whole body (decoded as UTF-8) gives, and a
 * body that is not valid JSON throws the same error. The reuse holds because identical bytes up to
 * a point mean an identical parse up to that point: the kept offsets are element ends of
 * `messages` inside the top-level object, so the new body is in the same place of the same
 * structure there. Everything after is cut by `jsonScan.ts` into pieces (keys, values, messages),
 * each parsed by `JSON.parse`, with the JSON grammar between them checked byte by byte; anything
 * unexpected (a syntax error, a duplicate top-level key, `messages` not an array) and the whole
 * body is parsed the plain way instead. Cuts fall just after ASCII bytes, where UTF-8 decoding
 * restarts cleanly, so decoding the pieces gives the same text as decoding the whole.
 *
 * The messages of a parsed body are deep-frozen, on every path: a message object is shared by
 * every later record of its conversation, so nobody may change it.
 *
 * A body arrives as the chunks the socket gave: the conversation's bytes are kept in one buffer
 * (`bodyArena.ts`) that each new body is compared with and written over from where it differs, so
 * a body of megabytes costs a compare and a write of its new bytes, never a copy of the whole.
 */
import { BodyArena, type BodyHandle } from './bodyArena.js';
import { skipWhitespace, stringEnd, valueEnd } from './jsonScan.js';

/** A parsed body: the value `JSON.parse` gives and the UTF-16 length of the decoded text. */
export interface ParsedBody {
  readonly value: unknown;
  /** `bytes.toString('utf8').length`, known without decoding the reused prefix. */
  readonly textLength: number;
  /** The whole decoded text, when the plain path had to decode it anyway. */
  readonly text?: string;
  /** The body's text (`text`, or the bytes decoded now: they stay available after later bodies). */
  decode(): string;
}

/** What is kept of one body for the next request of its conversation. */
interface Kept {
  /** Holds this body's bytes (below its `stable`) and is written over by the next body. */
  readonly arena: BodyArena;
  /** The arena's size when kept, as counted in the bound on kept bytes. */
  readonly size: number;
  /** Top-level members before `messages`: keys and value ranges (identical bytes in a reusing body). */
  readonly head: readonly Member[];
  /** The frozen messages and, per message, the end of its bytes and of its text's UTF-16 length minus bytes. */
  readonly messages: readonly unknown[];
  readonly ends: readonly number[];
  readonly extraAtEnd: readonly number[];
}

interface Member {
  readonly key: string;
  readonly start: number;
  readonly end: number;
}

/** Bounds on what is kept: conversations and their bytes (oldest dropped first). */
const MAX_KEPT = 4096;
const MAX_KEPT_BYTES = 256 * 1024 * 1024;

export interface RequestBodyParser {
  /** The body's JSON value; throws `JSON.parse`'s own error when it is not JSON. */
  parse(bytes: Buffer): ParsedBody;
  /** The same for a body received as `chunks`, in order (they are not kept). */
  parseChunks(chunks: readonly Buffer[]): ParsedBody;
}

/** A parser that keeps what it needs to reuse each conversation's previous request. */
export function createRequestBodyParser(): RequestBodyParser {
  // Keyed by the bytes (as latin1, one char per byte) up to the end of the first message.
  const kept = new Map<string, Kept>();
  let keptBytes = 0;

  const forget = (key: string, entry: Kept): void => {
    kept.delete(key);
    keptBytes -= entry.size;
  };

  const keep = (key: string, entry: Kept): void => {
    const old = kept.get(key);
    if (old !== undefined) forget(key, old);
    kept.set(key, entry);
    keptBytes += entry.size;
    for (const [oldest, value] of kept) {
      if (kept.size <= MAX_KEPT && keptBytes <= MAX_KEPT_BYTES) break;
      forget(oldest, value);
    }
  };

  const parseChunks = (chunks: readonly Buffer[]): ParsedBody => {
    let total = 0;
    for (const chunk of chunks) total += chunk.length;
    // One lookup per body, whatever the number of conversations kept: the key is cut where this
    // body's first message ends (a wrong cut only misses; a hit means equal bytes up to the key's end).
    let source = chunks;
    let end = chunks.length === 0 ? -1 : firstMessageEnd(chunks[0]!);
    // The first message did not fit the first chunk: the usual case for a client that writes the
    // body's opening (`{"model":…,"messages":[`) as a piece of its own, so it arrives alone. Only
    // the leading chunks are joined, doubling how many until the first message is in them (the
    // whole body was joined before: a 2 MB copy and allocation per request at turn 1000). The end
    // found in a joined prefix is the end in the whole body: it depends on the bytes before it only.
    for (let head = 1; end < 0 && head < chunks.length; ) {
      head = Math.min(2 * head, chunks.length);
      const prefix = Buffer.concat(chunks.slice(0, head) as Buffer[]);
      source = [prefix, ...chunks.slice(head)];
      end = firstMessageEnd(prefix);
    }
    const key = end < 0 ? undefined : source[0]!.toString('latin1', 0, end);
    const previous = key === undefined ? undefined : kept.get(key);

    let bytes: Buffer;
    let arena: BodyArena | undefined;
    let handle: BodyHandle | undefined;
    /** The new body equals the previous one of its conversation below this. */
    let sameAsPrevious = 0;
    if (previous !== undefined) {
      const same = previous.arena.mismatch(source);
      sameAsPrevious = Math.min(same, previous.arena.stable);
      ({ arena, handle } = previous.arena.write(source, total, same));
      bytes = arena.bytes();
    } else if (key !== undefined) {
      arena = BodyArena.of(source, total);
      ({ handle } = arena.write(source, total, total));
      bytes = arena.bytes();
    } else {
      bytes = source.length === 1 ? source[0]! : Buffer.concat(source as Buffer[], total);
    }

    const scanned = scanBody(bytes, previous, sameAsPrevious);
    if (scanned === undefined) {
      const text = bytes.toString('utf8');
      const value: unknown = JSON.parse(text);
      freezeMessages(value);
      return { value, textLength: text.length, text, decode: () => text };
    }
    // Kept under the key it was found by (the arena then belongs to one entry only).
    if (arena !== undefined && key !== undefined && scanned.kept.ends.length > 0 && bytes.toString('latin1', 0, scanned.kept.ends[0]) === key) {
      arena.stable = total;
      const { head, messages, ends, extraAtEnd } = scanned.kept;
      keep(key, { arena, size: arena.capacity, head, messages, ends, extraAtEnd }); // one shape (a spread cost more than the parse)
    }
    const body = handle ?? { decode: () => bytes.toString('utf8') };
    return { value: scanned.value, textLength: scanned.textLength, decode: () => body.decode() };
  };

  return {
    parse: (bytes) => parseChunks([bytes]),
    parseChunks,
  };
}

interface Scanned {
  readonly value: unknown;
  readonly textLength: number;
  readonly kept: ScannedMessages;
}

/** What the scan gives of a body for `Kept`. */
type ScannedMessages = Omit<Kept, 'arena' | 'size'>;

/**
 * Parses `bytes` piece by piece, reusing the messages of `previous` that end where the bytes are
 * still the same (below `same`); undefined: parse it whole.
 */
function scanBody(bytes: Buffer, previous: Kept | undefined, same: number): Scanned | undefined {
  const members: [string, unknown][] = [];
  const seen = new Set<string>();
  const head: Member[] = [];
  let messages: unknown[] | undefined;
  let ends: number[] = [];
  let extraAtEnd: number[] = [];
  /** UTF-16 length minus byte length of what was decoded so far. */
  let extra = 0;
  let pos: number;
  /**
   * Only bodies whose messages are all objects are kept: an object ends at its own `}`, so equal
   * bytes up to there mean an equal message whatever follows, while a scalar such as `1` ends at
   * the byte after it (`1` then `2` is the number 12). A non-object message is invalid anyway.
   */
  let keepable = true;

  /** Decodes and parses bytes [start, end), counting the text's length. */
  const parsePiece = (start: number, end: number): unknown => {
    const text = bytes.toString('utf8', start, end);
    extra += text.length - (end - start);
    return JSON.parse(text);
  };
  const addMember = (key: string, value: unknown): boolean => {
    if (seen.has(key)) return false; // JSON.parse's last-wins order is not worth reproducing here
    seen.add(key);
    members.push([key, value]);
    return true;
  };

  /** Scans the messages array's elements from `pos` (just after `[` or after an element); false on anything unexpected. */
  const scanMessages = (afterElement: boolean): boolean => {
    let expectValue = !afterElement;
    for (;;) {
      pos = skipWhitespace(bytes, pos);
      const c = bytes[pos];
      if (expectValue) {
        if (c === 0x5d && ends.length === 0) break; // `[]`
        if (c !== 0x7b) keepable = false;
        const end = valueEnd(bytes, pos);
        if (end < 0) return false;
        const message = parsePiece(pos, end);
        deepFreeze(message);
        messages!.push(message);
        ends.push(end);
        extraAtEnd.push(extra);
        pos = end;
        expectValue = false;
      } else if (c === 0x2c) {
        pos++;
        expectValue = true;
      } else if (c === 0x5d) {
        break;
      } else {
        return false;
      }
    }
    pos++; // the `]`
    return true;
  };

  try {
    const reuse = previous === undefined ? 0 : reusableMessages(previous, same);
    let afterMember: boolean;
    if (reuse > 0) {
      const kept = previous!;
      for (const member of kept.head) {
        if (!addMember(member.key, parsePiece(member.start, member.end))) return undefined;
        head.push(member);
      }
      messages = kept.messages.slice(0, reuse);
      ends = kept.ends.slice(0, reuse);
      extraAtEnd = kept.extraAtEnd.slice(0, reuse);
      extra = extraAtEnd[reuse - 1]!;
      pos = ends[reuse - 1]!;
      if (!addMember('messages', messages) || !scanMessages(true)) return undefined;
      afterMember = true;
    } else {
      pos = skipWhitespace(bytes, 0);
      if (bytes[pos] !== 0x7b) return undefined;
      pos++;
      afterMember = false;
    }

    // The top-level members from `pos` (after `{` or after a member) to the closing `}`.
    for (;;) {
      pos = skipWhitespace(bytes, pos);
      if (bytes[pos] === 0x7d) {
        pos++;
        break;
      }
      if (afterMember) {
        if (bytes[pos] !== 0x2c) return undefined;
        pos = skipWhitespace(bytes, pos + 1);
      }
      if (bytes[pos] !== 0x22) return undefined;
      const keyEnd = stringEnd(bytes, pos);
      if (keyEnd < 0) return undefined;
      const key = parsePiece(pos, keyEnd) as string;
      pos = skipWhitespace(bytes, keyEnd);
      if (bytes[pos] !== 0x3a) return undefined;
      pos = skipWhitespace(bytes, pos + 1);
      if (key === 'messages' && bytes[pos] === 0x5b && messages === undefined) {
        messages = [];
        pos++;
        if (!addMember(key, messages) || !scanMessages(false)) return undefined;
      } else {
        const end = valueEnd(bytes, pos);
        if (end < 0) return undefined;
        if (!addMember(key, parsePiece(pos, end))) return undefined;
        if (messages === undefined) head.push({ key, start: pos, end });
        pos = end;
      }
      afterMember = true;
    }
    if (skipWhitespace(bytes, pos) !== bytes.length) return undefined;
  } catch {
    return undefined; // a piece is not JSON: the whole body's parse says what is wrong
  }

  const value = Object.fromEntries(members);
  const kept: ScannedMessages = messages === undefined || !keepable ? { head: [], messages: [], ends: [], extraAtEnd: [] } : { head, messages, ends, extraAtEnd };
  return { value, textLength: bytes.length + extra, kept };
}

const MESSAGES_KEY = '"messages"';

/**
 * Where the first element of the top-level `messages` array ends in `bytes`, or -1 when it is
 * not found by a plain scan (no `messages` member, an empty array, a key written with escapes,
 * anything malformed): the body is then parsed without a previous request.
 */
function firstMessageEnd(bytes: Buffer): number {
  let pos = skipWhitespace(bytes, 0);
  if (bytes[pos] !== 0x7b) return -1;
  pos++;
  for (;;) {
    pos = skipWhitespace(bytes, pos);
    if (bytes[pos] !== 0x22) return -1;
    const keyEnd = stringEnd(bytes, pos);
    if (keyEnd < 0) return -1;
    const isMessages = keyEnd - pos === MESSAGES_KEY.length && bytes.toString('latin1', pos, keyEnd) === MESSAGES_KEY;
    pos = skipWhitespace(bytes, keyEnd);
    if (bytes[pos] !== 0x3a) return -1;
    pos = skipWhitespace(bytes, pos + 1);
    if (isMessages) return bytes[pos] === 0x5b ? valueEnd(bytes, skipWhitespace(bytes, pos + 1)) : -1;
    const end = valueEnd(bytes, pos);
    if (end < 0) return -1;
    pos = skipWhitespace(bytes, end);
    if (bytes[pos] !== 0x2c) return -1;
    pos++;
  }
}

/** How many of `previous`'s messages end where the new body is still the same as it (below `same`). */
function reusableMessages(previous: Kept, same: number): number {
  const { ends } = previous;
  let n = ends.length;
  while (n > 0 && ends[n - 1]! > same) n--;
  return n;
}

/** Freezes the elements of `value.messages` (the plain path), as the scan path does. */
function freezeMessages(value: unknown): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const messages = (value as { messages?: unknown }).messages;
  if (Array.isArray(messages)) for (const message of messages) deepFreeze(message);
}

/** Freezes `value` and everything in it (a loop, not recursion: JSON may nest deeper than the stack). */
function deepFreeze(value: unknown): void {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item !== 'object' || item === null || Object.isFrozen(item)) continue;
    Object.freeze(item);
    if (Array.isArray(item)) for (const child of item) stack.push(child);
    else for (const key in item) stack.push((item as Record<string, unknown>)[key]);
  }
}
