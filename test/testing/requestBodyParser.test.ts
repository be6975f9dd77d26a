import { describe, expect, it } from 'vitest';
import { createRequestBodyParser, type RequestBodyParser } from '../../src/testing/requestBodyParser.js';
import { seededRandom as prng } from '../corpus/corpus.js';

const WORDS = ['lorem', 'ipsum', 'dolor', 'é', 'naïve', '日本語', '😀', '"quoted"', 'back\\slash', 'tab\t', 'line\nbreak', '\u0000', '\ud800', '}', ']', ',', '{"a":1}'];

function textOf(rand: () => number, words: number): string {
  let out = '';
  for (let i = 0; i < words; i++) out += `${WORDS[Math.floor(rand() * WORDS.length)]} `;
  return out;
}

/** A conversation's messages after `turns` tool turns, the last user message with a cache breakpoint. */
function messagesOf(rand: () => number, conversation: number, turns: number): unknown[] {
  const messages: unknown[] = [{ role: 'user', content: `conversation ${conversation}: ${textOf(prng(conversation), 5)}` }];
  for (let t = 0; t < turns; t++) {
    messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${conversation}_${t}`, name: 'fetch', input: { n: t } }] });
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${conversation}_${t}`, content: textOf(prng(conversation * 1000 + t), 20) }] });
  }
  const last = messages[messages.length - 1] as { content: unknown };
  if (turns > 0 && rand() < 0.7) {
    const blocks = last.content as Record<string, unknown>[];
    messages[messages.length - 1] = { ...last, content: [{ ...blocks[0], cache_control: { type: 'ephemeral' } }] };
  }
  return messages;
}

function bodyOf(rand: () => number, conversation: number, turns: number): Record<string, unknown> {
  const body: Record<string, unknown> = { model: 'claude-test', max_tokens: 1024 };
  if (rand() < 0.5) body['system'] = `system ${textOf(rand, 3)}`;
  body['messages'] = messagesOf(rand, conversation, turns);
  if (rand() < 0.7) body['tools'] = [{ name: 'fetch', input_schema: { type: 'object' } }];
  body['stream'] = true;
  return body;
}

/** JSON text with random (valid) whitespace between tokens, or none. */
function serialize(rand: () => number, value: unknown): string {
  const mode = rand();
  if (mode < 0.6) return JSON.stringify(value);
  if (mode < 0.8) return JSON.stringify(value, null, rand() < 0.5 ? 2 : '\t');
  const ws = (): string => [' ', '\n', '\r\n', '\t', ''][Math.floor(rand() * 5)]!;
  const walk = (v: unknown): string => {
    if (Array.isArray(v)) return `[${ws()}${v.map((x) => `${walk(x)}${ws()}`).join(`,${ws()}`)}]`;
    if (typeof v === 'object' && v !== null) {
      return `{${ws()}${Object.entries(v).map(([k, x]) => `${JSON.stringify(k)}${ws()}:${ws()}${walk(x)}`).join(`${ws()},${ws()}`)}${ws()}}`;
    }
    return JSON.stringify(v);
  };
  return `${ws()}${walk(value)}${ws()}`;
}

/** A byte-level change: a letter swapped, a byte replaced, removed or inserted, a truncation, an invalid UTF-8 byte. */
function mutate(rand: () => number, bytes: Buffer): Buffer {
  const at = Math.floor(rand() * bytes.length);
  const kind = rand();
  if (kind < 0.35) {
    const copy = Buffer.from(bytes);
    const c = copy[at]!;
    copy[at] = c >= 0x61 && c <= 0x7a ? 0x61 + ((c - 0x61 + 1 + Math.floor(rand() * 24)) % 26) : Math.floor(rand() * 256);
    return copy;
  }
  if (kind < 0.5) return bytes.subarray(0, at);
  if (kind < 0.65) return Buffer.concat([bytes.subarray(0, at), bytes.subarray(at + 1)]);
  const inserted = [0x20, 0x0a, 0x2c, 0x7d, 0x5d, 0x22, 0x5c, 0x31, 0xff, 0xc3, 0xe6, 0xf0][Math.floor(rand() * 12)]!;
  return Buffer.concat([bytes.subarray(0, at), Buffer.from([inserted]), bytes.subarray(at)]);
}

/** Text splices that are valid JSON but trick a byte matcher: duplicate keys, escaped keys, scalars. */
function splice(rand: () => number, text: string): string {
  const choices = [
    () => text.replace('"messages"', '"mess\\u0061ges"'),
    () => text.replace(/\}\s*$/, ',"messages":[]}'),
    () => text.replace(/\}\s*$/, ',"model":"other"}'),
    () => text.replace('"model"', '"__proto__":{"x":1},"model"'),
    () => text.replace(/"messages"\s*:\s*\[/, '"messages":[1,'),
    () => text.replace(/"messages"\s*:\s*\[/, '"messages":[12,'),
    () => text.replace(/"messages"\s*:\s*\[/, '"messages":["x", null, true,'),
    () => text.replace(/\]\s*,\s*"(tools|stream)"/, '],"extra":{"a":[1,{"b":"]"}]},"$1"'),
    () => `\ufeff${text}`,
    () => text.replace('"stream":true', '"stream":true,"1":2'),
  ];
  return choices[Math.floor(rand() * choices.length)]!();
}

type Outcome = { ok: true; value: unknown; json: string; length: number } | { ok: false; error: string };

function plain(bytes: Buffer): Outcome {
  const text = bytes.toString('utf8');
  try {
    const value: unknown = JSON.parse(text);
    return { ok: true, value, json: JSON.stringify(value), length: text.length };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/** `bytes` cut at random places (empty pieces too), as a socket may deliver a body. */
function chunked(rand: () => number, bytes: Buffer): Buffer[] {
  const chunks: Buffer[] = [];
  let at = 0;
  while (at < bytes.length) {
    const n = rand() < 0.1 ? 0 : Math.floor(rand() * (rand() < 0.5 ? 64 : 4096)) + 1;
    chunks.push(bytes.subarray(at, at + n));
    at += n;
  }
  return chunks;
}

/** Bodies parsed so far with what their `decode` must give, however many bodies came after. */
const decodes: { decode: () => string; text: string }[] = [];

function incremental(parser: RequestBodyParser, bytes: Buffer, rand?: () => number): Outcome {
  try {
    const parsed = rand === undefined ? parser.parse(bytes) : parser.parseChunks(chunked(rand, bytes));
    decodes.push({ decode: parsed.decode, text: bytes.toString('utf8') });
    return { ok: true, value: parsed.value, json: JSON.stringify(parsed.value), length: parsed.textLength };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

/** Checks the parser against JSON.parse; returns the parsed messages (when there are). */
function expectSame(parser: RequestBodyParser, bytes: Buffer, rand?: () => number): unknown[] | undefined {
  const expected = plain(bytes);
  const actual = incremental(parser, bytes, rand);
  if (!expected.ok || !actual.ok) {
    expect(actual).toEqual(expected);
    return undefined;
  }
  expect(actual.value).toStrictEqual(expected.value);
  // Key order too (toStrictEqual ignores it), and the decoded text's length.
  expect(actual.json).toBe(expected.json);
  expect(actual.length).toBe(expected.length);
  const messages = typeof actual.value === 'object' && actual.value !== null ? (actual.value as { messages?: unknown }).messages : undefined;
  if (!Array.isArray(messages)) return undefined;
  for (const m of messages) if (typeof m === 'object' && m !== null) expect(Object.isFrozen(m)).toBe(true);
  return messages;
}

describe('createRequestBodyParser', () => {
  it('reuses the shared prefix of a growing conversation and gives what JSON.parse gives', () => {
    const parser = createRequestBodyParser();
    const values: unknown[] = [];
    for (let turn = 0; turn < 30; turn++) {
      const bytes = Buffer.from(JSON.stringify(bodyOf(prng(1), 7, turn)));
      expectSame(parser, bytes);
      values.push(parser.parse(bytes).value);
    }
    // Reused: the first message is the same object in consecutive records of the conversation.
    const first = (v: unknown) => (v as { messages: unknown[] }).messages[0];
    expect(first(values[29])).toBe(first(values[28]));
  });

  it('matches JSON.parse on random interleaved conversations, whitespace, mutations and splices (fuzz)', () => {
    const rand = prng(20);
    const parser = createRequestBodyParser();
    const turns = new Map<number, number>();
    const firstMessages = new Set<unknown>();
    let reused = 0;
    for (let step = 0; step < 2000; step++) {
      const conversation = Math.floor(rand() * 4);
      const turn = (turns.get(conversation) ?? 0) + (rand() < 0.8 ? 1 : 0);
      turns.set(conversation, turn > 40 ? 0 : turn);
      const body = bodyOf(rand, conversation, turn);
      let text = serialize(rand, body);
      if (rand() < 0.15) text = splice(rand, text);
      let bytes: Buffer = Buffer.from(text);
      const roll = rand();
      if (roll < 0.3) bytes = mutate(rand, bytes);
      else if (roll < 0.4) bytes = mutate(rand, mutate(rand, bytes));
      // Half the bodies arrive in random chunks, as from a socket.
      const first = expectSame(parser, bytes, rand() < 0.5 ? rand : undefined)?.[0];
      if (firstMessages.has(first)) reused++;
      firstMessages.add(first);
      // Every earlier body still decodes to its own text, though later ones were written over it.
      if (step % 100 === 99) for (const { decode, text } of decodes) expect(decode()).toBe(text);
    }
    // The reuse path was taken for most bodies (the same first message object as an earlier body's).
    expect(reused).toBeGreaterThan(1000);
    expect(decodes.length).toBeGreaterThan(1000);
  });

  it('reuses the conversation when the first message arrives split over several chunks', () => {
    // As the client writes a body: its opening (`{"model":…,"messages":[`) alone, then the history.
    const parser = createRequestBodyParser();
    const firsts: unknown[] = [];
    for (let turn = 1; turn < 12; turn++) {
      const bytes = Buffer.from(JSON.stringify(bodyOf(prng(5), 3, turn)));
      const open = bytes.indexOf('"messages":[') + '"messages":['.length;
      const firstEnd = bytes.indexOf('},{"role"', open) + 1;
      // Cut before, inside (in 1 to 11 pieces: joined by doubling) and after the first message.
      const pieces = turn % 11;
      const cuts = [open, ...Array.from({ length: pieces }, (_, i) => open + Math.floor(((i + 1) * (firstEnd - open)) / (pieces + 1))), firstEnd + 3];
      const chunks = [0, ...cuts].map((from, i) => bytes.subarray(from, [...cuts, bytes.length][i]));
      expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
      const parsed = parser.parseChunks(chunks);
      expect(JSON.stringify(parsed.value)).toBe(JSON.stringify(JSON.parse(bytes.toString('utf8'))));
      expect(parsed.decode()).toBe(bytes.toString('utf8'));
      firsts.push((parsed.value as { messages: unknown[] }).messages[0]);
    }
    // The same first message object in every record: each body reused the one before it.
    for (const first of firsts) expect(first).toBe(firsts[0]);
  });

  it('finds the conversation of each body among many whose first messages differ in length', () => {
    const parser = createRequestBodyParser();
    const firstOf = (bytes: Buffer) => (parser.parse(bytes).value as { messages: unknown[] }).messages[0];
    const bodies = (turn: number) =>
      Array.from({ length: 300 }, (_, i) =>
        Buffer.from(JSON.stringify({ model: 'm', max_tokens: 8, messages: [{ role: 'user', content: 'x'.repeat(i) }, ...Array.from({ length: turn }, () => ({ role: 'assistant', content: 'ok' }))] })),
      );
    const firsts = bodies(1).map(firstOf);
    // Each second request reuses its own conversation's first message, the same object.
    bodies(2).forEach((bytes, i) => expect(firstOf(bytes)).toBe(firsts[i]));
  });

  it('sees a change inside a reused message, next to a message boundary', () => {
    const parser = createRequestBodyParser();
    const body = bodyOf(prng(3), 1, 10);
    const text = JSON.stringify(body);
    expectSame(parser, Buffer.from(text));
    const boundaries = [...text.matchAll(/\}(?=,\{"role")/g)].map((m) => m.index);
    for (const at of boundaries) {
      for (const delta of [-2, -1, 0, 1, 2]) {
        const bytes = Buffer.from(text);
        bytes[at + delta] = bytes[at + delta] === 0x61 ? 0x62 : 0x61;
        expectSame(parser, bytes);
        expectSame(parser, Buffer.from(text)); // and the original again, reusing what is kept
      }
    }
  });

  it('keeps a scalar message apart from a longer one that shares its bytes', () => {
    const parser = createRequestBodyParser();
    expectSame(parser, Buffer.from('{"messages":[1,{"role":"user","content":"a"}]}'));
    expectSame(parser, Buffer.from('{"messages":[12,{"role":"user","content":"a"}]}'));
    expectSame(parser, Buffer.from('{"messages":[{"role":"user","content":"a"},1]}'));
    expectSame(parser, Buffer.from('{"messages":[{"role":"user","content":"a"},12]}'));
    expectSame(parser, Buffer.from('{"messages":[{"role":"user","content":"a"},1.5e]}'));
  });

  it('throws the error JSON.parse throws for a body that is not JSON', () => {
    const parser = createRequestBodyParser();
    for (const text of ['', '{', '{"model": ', '[1,2]', 'null', '{"messages":[{"a":1},]}', '{"a":1}{}', '{"messages":[]}x']) {
      expectSame(parser, Buffer.from(text));
    }
  });
});
