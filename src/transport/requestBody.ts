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

/**
 * Builds request bodies as UTF-8 bytes; one per client, so its cache lives (and is collected)
 * with the client. Bytes, not a string: each item is encoded once too, and the body is one copy
 * of cached pieces (a string body would be joined, then encoded whole by the socket write).
 */
export function createRequestBodySerializer(options: RequestBodySerializerOptions = {}): (request: MessagesRequest) => Buffer {
  const cache = new WeakMap<object, Buffer>();

  function serialize(request: MessagesRequest): Buffer {
    const fields = request as unknown as Record<string, unknown>;
    // A custom toJSON on the request decides its whole form: nothing to assemble.
    if (typeof fields['toJSON'] === 'function') return Buffer.from(JSON.stringify({ ...request, stream: true }));
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
        // A plain loop, not map(): map skips holes, which JSON writes as null.
        for (let i = 0; i < value.length; i++) {
          if (i > 0) pending += ',';
          const item: unknown = value[i];
          if (typeof item !== 'object' || item === null) {
            pending += JSON.stringify(item) ?? 'null';
            continue;
          }
          let bytes = cache.get(item);
          if (bytes === undefined) {
            bytes = Buffer.from(JSON.stringify(item) ?? 'null');
            cache.set(item, bytes);
          }
          flush();
          push(bytes);
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
    // One allocation of the known size: no per-piece buffers beyond the framing.
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, total);
  }

  if (!(options.verify ?? VERIFY)) return serialize;
  return (request) => {
    const body = serialize(request);
    if (body.toString('utf8') !== JSON.stringify({ ...request, stream: true })) {
      throw new Error('request body cache is stale: a message or tool was changed in place after it was sent (RXAGENT_VERIFY_REQUEST_JSON)');
    }
    return body;
  };
}
