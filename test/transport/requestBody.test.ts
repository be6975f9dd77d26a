/**
 * The request body assembled from cached message JSON is byte for byte the full stringify, and
 * each history message is stringified once however many requests send it.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { bodyBytes, createRequestBodySerializer, JOINED_AT_MOST, joinSmallRuns, SMALL_PIECE } from '../../src/transport/requestBody.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { MessageParam } from '../../src/protocol/content.js';

const full = (request: unknown) => JSON.stringify({ ...(request as object), stream: true });

/** JSON-ish values with the members JSON treats specially: undefined, nulls, nested arrays. */
const jsonish = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    // Any UTF-16: non-ASCII, astral and lone surrogates (which JSON escapes, so UTF-8 stays exact).
    fc.string({ unit: 'binary' }),
    fc.double(),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.array(tie('value')),
    fc.dictionary(fc.string({ unit: 'binary' }), tie('value')),
  ),
})).value;

const requestArb = fc.record(
  {
    model: fc.string(),
    max_tokens: fc.integer(),
    stream: fc.oneof(fc.boolean(), fc.constant(undefined)),
    system: jsonish,
    messages: fc.array(fc.oneof(fc.dictionary(fc.string(), jsonish), jsonish)),
    tools: fc.oneof(fc.array(fc.dictionary(fc.string(), jsonish)), fc.constant(undefined), fc.string()),
    metadata: jsonish,
  },
  { requiredKeys: [] },
);

describe('createRequestBodySerializer', () => {
  it('gives exactly JSON.stringify({ ...request, stream: true }), on first and repeated use', () => {
    const serializer = createRequestBodySerializer({ verify: false });
    const serialize = (r: MessagesRequest) => bodyBytes(serializer(r)).toString('utf8');
    fc.assert(
      fc.property(requestArb, (request) => {
        const expected = full(request);
        expect(serialize(request as unknown as MessagesRequest)).toBe(expected);
        expect(serialize(request as unknown as MessagesRequest)).toBe(expected); // from the cache
      }),
      { numRuns: 200 },
    );
  });

  it('keeps key order when `stream` sits in the middle, writes holes and functions in arrays as null', () => {
    const serializer = createRequestBodySerializer({ verify: false });
    const serialize = (r: MessagesRequest) => bodyBytes(serializer(r)).toString('utf8');
    const messages = [{ role: 'user', content: 'a' }, , () => 1, undefined] as unknown as MessageParam[];
    const request = { model: 'm', stream: false, messages, drop: undefined, fn: () => 2 } as unknown as MessagesRequest;
    expect(serialize(request)).toBe(full(request));
    expect(serialize(request)).toContain('"stream":true,"messages":[{"role":"user","content":"a"},null,null,null]');
  });

  it('stringifies each history message once across a growing conversation', () => {
    const serializer = createRequestBodySerializer({ verify: false });
    const serialize = (r: MessagesRequest) => bodyBytes(serializer(r)).toString('utf8');
    const calls = new Map<number, number>();
    /** A message whose toJSON counts how often JSON reads it (the answer is the same each time). */
    const counted = (n: number): MessageParam => {
      const role = n % 2 === 0 ? 'user' : 'assistant';
      const content = `turn ${n}`;
      const toJSON = () => {
        calls.set(n, (calls.get(n) ?? 0) + 1);
        return { role, content };
      };
      return { role, content, toJSON } as unknown as MessageParam;
    };
    const history: MessageParam[] = [];
    for (let turn = 0; turn < 50; turn++) {
      history.push(counted(turn));
      const body = serialize({ model: 'm', max_tokens: 1, messages: [...history] });
      expect(JSON.parse(body).messages).toHaveLength(turn + 1);
    }
    expect([...calls.values()].every((c) => c === 1)).toBe(true);
    expect(calls.size).toBe(50);
  });

  it('in verify mode, a message changed in place after it was sent fails loudly instead of sending stale JSON', () => {
    const serializer = createRequestBodySerializer({ verify: true });
    const serialize = (r: MessagesRequest) => bodyBytes(serializer(r)).toString('utf8');
    const block = { type: 'text' as const, text: 'before' };
    const message: MessageParam = { role: 'user', content: [block] };
    const request = { model: 'm', max_tokens: 1, messages: [message] } as MessagesRequest;
    expect(serialize(request)).toBe(full(request));
    block.text = 'after';
    expect(() => serialize(request)).toThrow(/changed in place/);
  });

  it('a conversation that grows, is cut, rewritten or forked: every body exact, and no later request changes an earlier body', () => {
    const serializer = createRequestBodySerializer({ verify: false });
    const msg = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.string({ maxLength: 2000 })).map((text): MessageParam => ({ role: 'user', content: text }));
    type Step = { t: 'grow'; add: MessageParam[] } | { t: 'cut'; keep: number } | { t: 'rewriteFrom'; at: number; with: MessageParam } | { t: 'fork' } | { t: 'model'; model: string };
    const stepArb: fc.Arbitrary<Step> = fc.oneof(
      { weight: 6, arbitrary: fc.array(msg, { minLength: 1, maxLength: 3 }).map((add): Step => ({ t: 'grow', add })) },
      { weight: 1, arbitrary: fc.nat(8).map((keep): Step => ({ t: 'cut', keep })) },
      { weight: 1, arbitrary: fc.tuple(fc.nat(8), msg).map(([at, m]): Step => ({ t: 'rewriteFrom', at, with: m })) },
      { weight: 1, arbitrary: fc.constant<Step>({ t: 'fork' }) },
      // The body's opening (the members before messages) changes: the history buffer begins with
      // the opening it was started with, so a request with another one must not send those bytes.
      { weight: 1, arbitrary: fc.constantFrom('m', 'n', 'é\u{1F600}', 'x'.repeat(20_000)).map((model): Step => ({ t: 'model', model })) },
    );
    fc.assert(
      fc.property(fc.array(stepArb, { minLength: 1, maxLength: 30 }), (steps) => {
        // Two conversations sharing their first message object: the fork keeps a copy of the old one going.
        const first: MessageParam = { role: 'user', content: 'start' };
        let history: MessageParam[] = [first];
        let other: MessageParam[] | undefined;
        let model = 'm';
        const sent: { body: ReturnType<typeof serializer>; text: string }[] = [];
        const send = (messages: MessageParam[]) => {
          const request = { model, max_tokens: 1, messages: [...messages], tools: [{ name: 't', input_schema: {} }] } as unknown as MessagesRequest;
          const body = serializer(request);
          const text = bodyBytes(body).toString('utf8');
          expect(text).toBe(full(request));
          expect(body.byteLength).toBe(Buffer.byteLength(text));
          sent.push({ body, text });
        };
        for (const step of steps) {
          if (step.t === 'grow') history = [...history, ...step.add];
          else if (step.t === 'cut') history = history.slice(0, Math.max(1, step.keep));
          else if (step.t === 'rewriteFrom') history = [...history.slice(0, Math.max(1, step.at)), step.with];
          else if (step.t === 'model') model = step.model;
          else other = [...history];
          send(history);
          if (other !== undefined) send([...other, { role: 'assistant', content: 'fork' }]);
        }
        for (const { body, text } of sent) expect(bodyBytes(body).toString('utf8')).toBe(text);
      }),
      { numRuns: 200 },
    );
  });

  it('a late body is two chunks: the opening and the history in one, everything after it in the other', () => {
    const serializer = createRequestBodySerializer({ verify: false });
    const history: MessageParam[] = [];
    const tools = [{ name: 'Read', description: 'reads', input_schema: { type: 'object' } }];
    let body: ReturnType<typeof serializer> | undefined;
    let request: MessagesRequest | undefined;
    for (let turn = 0; turn < 100; turn++) {
      history.push({ role: turn % 2 === 0 ? 'user' : 'assistant', content: `turn ${turn} ${'r'.repeat(2000)}` });
      request = { model: 'claude-x', max_tokens: 64, system: 'be brief', messages: [...history], tools } as unknown as MessagesRequest;
      body = serializer(request);
    }
    expect(bodyBytes(body!).toString('utf8')).toBe(full(request));
    expect(body!.chunks).toHaveLength(2);
    expect(body!.chunks[0]!.toString('utf8', 0, 40)).toBe(full(request).slice(0, 40));
    expect(body!.chunks[1]!.length).toBeLessThan(SMALL_PIECE);
  });
});

describe('joinSmallRuns', () => {
  const bytes = (n: number, fill: string) => Buffer.alloc(n, fill);
  const joined = (parts: readonly Buffer[]) => Buffer.concat(parts as Buffer[]).toString('latin1');

  it('empty and one piece come back as they are', () => {
    const none: Buffer[] = [];
    expect(joinSmallRuns(none)).toBe(none);
    const one = [bytes(3, 'a')];
    expect(joinSmallRuns(one)).toBe(one);
  });

  it('joins each run of small pieces and leaves large ones uncopied, the same bytes in order', () => {
    const large = bytes(SMALL_PIECE, 'L');
    const parts = [bytes(1, 'a'), bytes(2, 'b'), large, bytes(3, 'c'), bytes(4, 'd'), bytes(5, 'e')];
    const out = joinSmallRuns(parts);
    expect(out.map((p) => p.length)).toEqual([3, SMALL_PIECE, 12]);
    expect(out[1]).toBe(large);
    expect(joined(out)).toBe(joined(parts));
  });

  it('a run never grows past JOINED_AT_MOST', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: SMALL_PIECE * 2 }), { maxLength: 40 }), (sizes) => {
        const parts = sizes.map((n, i) => bytes(n, String.fromCharCode(97 + (i % 26))));
        const out = joinSmallRuns(parts);
        expect(joined(out)).toBe(joined(parts));
        for (const piece of out) if (!(parts as readonly Buffer[]).some((part) => part === piece)) expect(piece.length).toBeLessThanOrEqual(JOINED_AT_MOST);
        expect(out.length).toBeLessThanOrEqual(parts.length);
      }),
    );
  });
});
