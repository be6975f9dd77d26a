import { describe, expect, it } from 'vitest';
import { BodyArena, type BodyHandle } from '../../src/testing/bodyArena.js';
import { seededRandom as prng } from '../corpus/corpus.js';

/** `bytes` in random pieces (empty ones too). */
function chunked(rand: () => number, bytes: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  for (let at = 0; at < bytes.length; ) {
    const n = Math.floor(rand() * 300);
    chunks.push(bytes.subarray(at, at + n));
    at += n;
  }
  return chunks;
}

/** The next body of a conversation: usually the last one cut somewhere and extended, else anything. */
function nextBody(rand: () => number, last: Buffer): Buffer {
  const roll = rand();
  const noise = (n: number) => Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256)));
  if (roll < 0.1) return Buffer.from(last); // a retry
  if (roll < 0.2) return last.subarray(0, Math.floor(rand() * last.length)); // shorter
  if (roll < 0.3) return noise(Math.floor(rand() * 2000)); // unrelated
  const cut = roll < 0.4 ? Math.floor(rand() * last.length) : Math.max(0, last.length - Math.floor(rand() * 50));
  return Buffer.concat([last.subarray(0, cut), noise(Math.floor(rand() * 400))]);
}

describe('BodyArena', () => {
  it('holds each body as written and keeps every earlier body decodable (fuzz)', () => {
    const rand = prng(11);
    const bodies: { handle: BodyHandle; bytes: Buffer }[] = [];
    let last: Buffer = Buffer.from('{"messages":[');
    let arena = BodyArena.of(chunked(rand, last), last.length);
    let moved = 0;
    for (let step = 0; step < 3000; step++) {
      const body = nextBody(rand, last);
      const chunks = chunked(rand, body);
      const same = arena.mismatch(chunks);
      // `mismatch` is the first byte where the two differ, or where one ends.
      const held = Buffer.from(arena.bytes());
      let expected = 0;
      while (expected < body.length && expected < held.length && body[expected] === held[expected]) expected++;
      expect(same).toBe(expected);
      const written = arena.write(chunks, body.length, same);
      expect(written.arena.bytes().equals(body)).toBe(true);
      bodies.push({ handle: written.handle, bytes: body });
      // A later body may keep using the new arena or, now and then, the one it left.
      if (written.arena !== arena) moved++;
      if (written.arena !== arena && rand() < 0.8) arena = written.arena;
      last = body;
      if (step % 250 === 0) for (const b of bodies) expect(b.handle.decode()).toBe(b.bytes.toString('utf8'));
    }
    for (const b of bodies) expect(b.handle.decode()).toBe(b.bytes.toString('utf8'));
    expect(moved).toBeGreaterThan(100); // bodies that differed below what handles refer to
  });
});
