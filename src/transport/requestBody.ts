/**
 * The JSON body of a streamed Messages API request, assembled from cached pieces.
 *
 * An agent's history only grows between requests: turn n sends the n-1 messages of the turn
 * before plus one or two new ones. Stringifying the whole body every time made each iteration
 * cost O(history) (at turn 1000 with 2 KB tool results, `JSON.stringify` was over a third of all
 * CPU). Here each element of `messages` and `tools` is stringified once and its JSON kept in a
 * WeakMap keyed by the object, so a request costs one stringify of what is new plus a join.
 *
 * This relies on what the rest of the library already holds to (microcompact caches by message
 * object too): a message or tool object is never changed in place once it was sent; compaction,
 * snip, microcompact and the cache breakpoints all build new objects for what they change. A
 * caller passing its own messages must do the same. With `RXAGENT_VERIFY_REQUEST_JSON=1` in the
 * environment (the test suite sets it) every body is also checked against a full stringify, so
 * any stage that breaks the rule fails loudly in tests.
 *
 * The history's JSON is also kept end to end in one growing buffer per conversation (keyed by its
 * first message), so a request sends that prefix as one slice of it: no per-request copy of a
 * body that reaches megabytes, and no megabyte allocation per request for the collector (at turn
 * 1000 with 2 KB results, the copy and its garbage were over 40% of the client's CPU). The body
 * goes to the socket as a few chunks with their total length.
 *
 * Few, because undici writes each chunk of a body with its own socket write (a cork, a write and
 * an uncork per chunk, the first one sharing a `writev` with the request head), and on loopback a
 * write's cost is mostly the syscall. So the history buffer starts with the body's opening
 * (`{"model":…,"messages":[`), and what follows the history (a comma, the last message, the
 * framing, the tools, the closing brace) is joined into one chunk (`joinSmallRuns`): a late body
 * is two chunks, head + opening + history in one `writev` and the rest in one `write`, where it
 * was seven.
 *
 * The output is byte for byte `JSON.stringify({ ...request, stream: true })` in UTF-8 (JSON text
 * is well-formed: lone surrogates are escaped, so the encoding is exact): same key order,
 * `undefined` members left out, holes and non-JSON array items as `null`.
 */
import type { MessagesRequest } from '../protocol/request.js';

/** Array members of the request whose items are cached one by one. */
const CACHED_ARRAYS: ReadonlySet<string> = new Set(['messages', 'tools']);

/** Shared by every body: most framing between two cached items is this one byte. */
const COMMA = Buffer.from(',');

/** Set by the test suite: every body is compared with a full `JSON.stringify`. */
const VERIFY = process.env['RXAGENT_VERIFY_REQUEST_JSON'] === '1';

export interface RequestBodySerializerOptions {
  /** Compare every body with a full stringify and throw when they differ. Default: the env flag above. */
  readonly verify?: boolean;
}

/** A request body as the chunks to write, in order, and their total size (its content-length). */
export interface RequestBody {
  readonly chunks: readonly Buffer[];
  readonly byteLength: number;
}

/** The whole body as one buffer (tests, logs): a copy, which requests never need. */
export function bodyBytes(body: RequestBody): Buffer {
  return body.chunks.length === 1 ? body.chunks[0]! : Buffer.concat(body.chunks as Buffer[], body.byteLength);
}

/**
 * The JSON of a conversation's messages, comma-joined, in one buffer that grows by doubling.
 * Bytes up to `length` never change once written (a request in flight may hold a slice of
 * them): a history that changed before its end gets a new history buffer, never an overwrite.
 */
interface HistoryJson {
  bytes: Buffer;
  length: number;
  /**
   * The body's opening written at the start of `bytes` (`{"model":…,"messages":[`), '' when there
   * was none; `start` is its length in bytes, where the first item's JSON begins. A request with
   * the same opening sends it with the history as one slice; another opening goes as a piece of
   * its own (the buffer's bytes are never rewritten).
   */
  readonly opening: string;
  readonly start: number;
  /** The message objects whose JSON is in `bytes`, in order. */
  readonly items: object[];
  /** Where each item's JSON (with its leading comma) ends, from the start of `bytes`. */
  readonly ends: number[];
}

const MIN_HISTORY_BYTES = 64 * 1024;

/** Body pieces shorter than this are joined with their neighbours (see joinSmallRuns). */
export const SMALL_PIECE = 16 * 1024;
/** A joined run of small pieces is at most this long. */
export const JOINED_AT_MOST = 64 * 1024;

/**
 * Builds request bodies as UTF-8 bytes; one per client, so its cache lives (and is collected)
 * with the client. Bytes, not a string: each item is encoded once too, and the body is written as
 * cached pieces (a string body would be joined, then encoded whole by the socket write).
 */
export function createRequestBodySerializer(options: RequestBodySerializerOptions = {}): (request: MessagesRequest) => RequestBody {
  const cache = new WeakMap<object, Buffer>();
  const histories = new WeakMap<object, HistoryJson>();

  const jsonOf = (item: object): Buffer => {
    let bytes = cache.get(item);
    if (bytes === undefined) {
      bytes = Buffer.from(JSON.stringify(item) ?? 'null');
      cache.set(item, bytes);
    }
    return bytes;
  };

  /**
   * The JSON of `messages` up to (not including) the last, as one slice of the conversation's
   * history buffer, and how many messages it covers. The last message is left out: it is the one
   * a request changes (its cache breakpoint moves on every turn). `opening` is the body's text
   * so far when nothing of it was written yet (else undefined): when the buffer starts with that
   * same text, the slice includes it (`withOpening`).
   */
  const historyPrefix = (
    messages: readonly unknown[],
    opening: string | undefined,
  ): { readonly bytes: Buffer; readonly count: number; readonly withOpening: boolean } | undefined => {
    const head = messages[0];
    const upTo = messages.length - 1;
    if (upTo < 1 || typeof head !== 'object' || head === null) return undefined;
    let history = histories.get(head);
    let kept = 0;
    if (history !== undefined) {
      const shared = Math.min(history.items.length, upTo);
      while (kept < shared && history.items[kept] === messages[kept]) kept++;
    }
    if (history === undefined || kept < history.items.length) {
      history = restart(history, kept, opening ?? '');
      histories.set(head, history);
    }
    for (let i = kept; i < upTo; i++) {
      const item = messages[i];
      if (typeof item !== 'object' || item === null) break; // the usual path writes it
      append(history, i > 0, jsonOf(item));
      history.items.push(item);
      history.ends.push(history.length);
      // Its JSON lives in the history buffer now; only a rewritten history stringifies it again.
      cache.delete(item);
    }
    if (history.items.length === 0) return undefined;
    const withOpening = opening !== undefined && opening === history.opening;
    return { bytes: history.bytes.subarray(withOpening ? 0 : history.start, history.length), count: history.items.length, withOpening };
  };

  function serialize(request: MessagesRequest): RequestBody {
    const fields = request as unknown as Record<string, unknown>;
    // A custom toJSON on the request decides its whole form: nothing to assemble.
    if (typeof fields['toJSON'] === 'function') return one(Buffer.from(JSON.stringify({ ...request, stream: true })));

    const parts: Buffer[] = [];
    let total = 0;
    /** JSON text not yet in `parts`: the framing between cached items is gathered here. */
    let pending = '{';
    let first = true;
    let streamWritten = false;
    const push = (bytes: Buffer): void => {
      parts.push(bytes);
      total += bytes.length;
    };
    /** Moves `pending` into `parts`; the usual lone comma between two items is one shared buffer. */
    const flush = (): void => {
      if (pending === '') return;
      push(pending === ',' ? COMMA : Buffer.from(pending));
      pending = '';
    };
    const member = (key: string, json: string): void => {
      pending += `${first ? '' : ','}${JSON.stringify(key)}:${json}`;
      first = false;
    };
    for (const key of Object.keys(fields)) {
      const value = fields[key];
      if (key === 'stream') {
        member(key, 'true'); // the spread's override keeps the key where the request had it
        streamWritten = true;
      } else if (CACHED_ARRAYS.has(key) && Array.isArray(value)) {
        member(key, '[');
        // Nothing written yet: the opening may already be in the history buffer, before the history.
        const prefix = key === 'messages' ? historyPrefix(value, parts.length === 0 ? pending : undefined) : undefined;
        if (prefix !== undefined) {
          if (prefix.withOpening) pending = '';
          else flush();
          push(prefix.bytes);
        }
        // A plain loop, not map(): map skips holes, which JSON writes as null.
        for (let i = prefix?.count ?? 0; i < value.length; i++) {
          if (i > 0) pending += ',';
          const item: unknown = value[i];
          if (typeof item !== 'object' || item === null) {
            pending += JSON.stringify(item) ?? 'null';
            continue;
          }
          flush();
          push(jsonOf(item));
        }
        pending += ']';
      } else {
        const json = JSON.stringify(value);
        if (json !== undefined) member(key, json); // undefined, a function: JSON leaves the member out
      }
    }
    if (!streamWritten) member('stream', 'true');
    pending += '}';
    flush();
    return { chunks: joinSmallRuns(parts), byteLength: total };
  }

  if (!(options.verify ?? VERIFY)) return serialize;
  return (request) => {
    const body = serialize(request);
    if (bodyBytes(body).toString('utf8') !== JSON.stringify({ ...request, stream: true })) {
      throw new Error('request body cache is stale: a message or tool was changed in place after it was sent (RXAGENT_VERIFY_REQUEST_JSON)');
    }
    return body;
  };
}

function one(bytes: Buffer): RequestBody {
  return { chunks: [bytes], byteLength: bytes.length };
}

/**
 * A history buffer starting with `opening` and holding the first `keep` items of `previous` (a
 * copy: see HistoryJson).
 */
function restart(previous: HistoryJson | undefined, keep: number, opening: string): HistoryJson {
  const start = Buffer.byteLength(opening);
  const from = previous?.start ?? 0;
  const to = keep === 0 || previous === undefined ? from : previous.ends[keep - 1]!;
  const length = start + (to - from);
  const bytes = Buffer.allocUnsafe(Math.max(MIN_HISTORY_BYTES, length * 2));
  bytes.write(opening, 0, 'utf8');
  if (to > from) previous!.bytes.copy(bytes, start, from, to);
  const shift = start - from;
  const ends = previous === undefined ? [] : previous.ends.slice(0, keep).map((end) => end + shift);
  return { bytes, length, opening, start, items: previous?.items.slice(0, keep) ?? [], ends };
}

/**
 * The pieces with each run of consecutive small ones (under SMALL_PIECE) joined into one buffer of
 * at most JOINED_AT_MOST bytes: the same bytes in fewer socket writes. Large pieces (the history)
 * stay as they are, uncopied. Returns `parts` itself when there is nothing to join.
 */
export function joinSmallRuns(parts: readonly Buffer[]): Buffer[] {
  const out: Buffer[] = [];
  let runStart = 0;
  let runBytes = 0;
  const endRun = (end: number): void => {
    if (end - runStart === 1) out.push(parts[runStart]!);
    else if (end - runStart > 1) out.push(Buffer.concat(parts.slice(runStart, end) as Buffer[], runBytes));
    runStart = end;
    runBytes = 0;
  };
  for (let i = 0; i < parts.length; i++) {
    const piece = parts[i]!;
    if (piece.length >= SMALL_PIECE) {
      endRun(i);
      out.push(piece);
      runStart = i + 1;
      continue;
    }
    if (runBytes + piece.length > JOINED_AT_MOST) endRun(i);
    runBytes += piece.length;
  }
  endRun(parts.length);
  return out.length === parts.length ? (parts as Buffer[]) : out;
}

/** Writes `json` (after a comma when `comma`) at the end, into a doubled buffer when it is full. */
function append(history: HistoryJson, comma: boolean, json: Buffer): void {
  const needed = history.length + (comma ? 1 : 0) + json.length;
  if (needed > history.bytes.length) {
    const grown = Buffer.allocUnsafe(Math.max(needed, history.bytes.length * 2));
    history.bytes.copy(grown, 0, 0, history.length);
    history.bytes = grown;
  }
  if (comma) history.bytes[history.length++] = 0x2c;
  history.length += json.copy(history.bytes, history.length);
}
