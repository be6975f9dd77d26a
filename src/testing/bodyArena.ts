/**
 * One buffer per conversation holding the bytes of its latest request body, which the next body
 * of the conversation is compared with and written over from where it differs.
 *
 * Why: at turn 1000 of an agent run a body is ~2 MB of which only the last few KB are new. Copying
 * each body into a fresh buffer of its own cost the scripted server a 2 MB allocation per request
 * (page faults on fresh memory, and megabytes of array buffers kept for one request, which kept
 * starting full collections of a heap a tenth that size). Here the received chunks are compared
 * with what the arena holds, and only the bytes after the first difference are written: the
 * shared prefix is never copied again.
 *
 * Records decode their `rawBody` lazily, after later bodies may have been written. So bytes that a
 * record still refers to are never overwritten: each body's `BodyHandle` points at the buffer, and
 * before a write at `p`, every handle reaching past `p` saves a copy of its bytes from `p` (its
 * tail: the last messages and the closing brackets, a few KB). `floor` is the highest such `p`:
 * handles refer to the buffer below it, so a body that differs earlier goes to a new arena (a
 * history rewritten from the middle, a fork) and this one is left as it is.
 */

/** A body's bytes for a lazy decode: the arena's first `length` bytes, then `tail` once saved. */
export class BodyHandle {
  private tail: Buffer | undefined = undefined;

  constructor(
    private buffer: Buffer,
    private length: number,
  ) {}

  /** Keeps bytes from `from` in a copy of its own: the buffer is about to be written there. */
  detachFrom(from: number): void {
    if (this.length <= from) return;
    const saved = Buffer.from(this.buffer.subarray(from, this.length));
    this.tail = this.tail === undefined ? saved : Buffer.concat([saved, this.tail]);
    this.length = from;
  }

  /** The body decoded as UTF-8 (the same text as decoding the bytes received, in one piece). */
  decode(): string {
    if (this.tail === undefined) return this.buffer.toString('utf8', 0, this.length);
    return Buffer.concat([this.buffer.subarray(0, this.length), this.tail]).toString('utf8');
  }
}

/** Bytes compared a block at a time (one native compare per block, a loop only in a block that differs). */
const COMPARE_BLOCK = 16 * 1024;
const MIN_CAPACITY = 1024;

export class BodyArena {
  /** The latest body's length: `buffer[0, length)` is its bytes. */
  private length: number;
  /** No write below this: handles refer to the buffer's bytes under it. */
  private floor = 0;
  /** Handles that may reach past `floor` (detached on the next write that would reach them). */
  private attached: BodyHandle[] = [];
  /**
   * How many leading bytes still equal the body this arena was last kept for (the parser's entry
   * of the conversation): a body that was written but not kept (invalid JSON) lowers it.
   */
  stable: number;

  private constructor(
    private buffer: Buffer,
    length: number,
  ) {
    this.length = length;
    this.stable = length;
  }

  /** A new arena holding a copy of the body `chunks` (`total` bytes). */
  static of(chunks: readonly Buffer[], total: number): BodyArena {
    const arena = new BodyArena(Buffer.allocUnsafe(Math.max(MIN_CAPACITY, total * 2)), 0);
    arena.copyIn(chunks, 0, total);
    arena.length = total;
    arena.stable = total;
    return arena;
  }

  /** The first index where the body `chunks` differs from the arena's bytes, or where one of them ends. */
  mismatch(chunks: readonly Buffer[]): number {
    let at = 0;
    for (const chunk of chunks) {
      const n = Math.min(chunk.length, this.length - at);
      const differs = firstDifference(chunk, this.buffer, at, n);
      if (differs < n) return at + differs;
      at += n;
      if (n < chunk.length) return at;
    }
    return at;
  }

  /**
   * Makes `buffer[0, total)` the body `chunks`, equal to the arena's bytes below `same` (from
   * `mismatch`): written in place, or into a new arena when that would overwrite bytes a handle
   * refers to. Returns the arena holding the body and its handle.
   */
  write(chunks: readonly Buffer[], total: number, same: number): { readonly arena: BodyArena; readonly handle: BodyHandle } {
    if (same < total && same < this.floor) {
      const arena = new BodyArena(Buffer.allocUnsafe(Math.max(MIN_CAPACITY, total * 2)), 0);
      this.buffer.copy(arena.buffer, 0, 0, same);
      arena.copyIn(chunks, same, total);
      arena.length = total;
      arena.stable = total;
      return { arena, handle: arena.attach(total) };
    }
    if (same < total) {
      for (const handle of this.attached) handle.detachFrom(same);
      this.attached = [];
      this.floor = Math.max(this.floor, same);
      if (total > this.buffer.length) {
        // Handles keep the old buffer, which is never written again.
        const grown = Buffer.allocUnsafe(Math.max(total, this.buffer.length * 2));
        this.buffer.copy(grown, 0, 0, same);
        this.buffer = grown;
      }
      this.copyIn(chunks, same, total);
    }
    this.length = total;
    this.stable = Math.min(this.stable, same);
    return { arena: this, handle: this.attach(total) };
  }

  /** The latest body's bytes, valid until the next `write` (to parse them). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }

  /** What the arena costs, for the parser's bound on kept bytes. */
  get capacity(): number {
    return this.buffer.length;
  }

  private attach(length: number): BodyHandle {
    const handle = new BodyHandle(this.buffer, length);
    this.attached.push(handle);
    return handle;
  }

  /** Copies the body's bytes [from, to) (offsets in the body `chunks`) to the same offsets of the buffer. */
  private copyIn(chunks: readonly Buffer[], from: number, to: number): void {
    let at = 0;
    for (const chunk of chunks) {
      const end = at + chunk.length;
      if (end > from && at < to) {
        const start = Math.max(from, at);
        chunk.copy(this.buffer, start, start - at, Math.min(to, end) - at);
      }
      at = end;
      if (at >= to) return;
    }
  }
}

/** The first index i < n where `chunk[i]` differs from `buffer[at + i]`, or n. */
function firstDifference(chunk: Buffer, buffer: Buffer, at: number, n: number): number {
  for (let i = 0; i < n; i += COMPARE_BLOCK) {
    let end = Math.min(i + COMPARE_BLOCK, n);
    if (chunk.compare(buffer, at + i, at + end, i, end) === 0) continue;
    // Halved with native compares down to a few bytes: a body usually differs from the previous
    // one only near its end, and a byte loop over the block before it cost more than the rest.
    let start = i;
    while (end - start > 32) {
      const middle = (start + end) >>> 1;
      if (chunk.compare(buffer, at + start, at + middle, start, middle) === 0) start = middle;
      else end = middle;
    }
    for (let j = start; j < end; j++) if (chunk[j] !== buffer[at + j]) return j;
    return end; // not reached: the range differs
  }
  return n;
}
