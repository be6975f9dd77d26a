/**
 * The cached validator (the scripted server's) against the plain one: for request after request
 * of interleaved conversations that share frozen message objects (as the server's body parser
 * hands them over), valid or not, the errors must be word for word and in the same order. The
 * cached path reuses what an earlier body's structural check established about its messages, so
 * the problems here sit where that could go wrong: across the end of the reused prefix, between
 * the prefix and the new messages (duplicate ids, the breakpoint count), in a former last message
 * that is no longer last, and in conversations that fork from a shared first message.
 */
import { describe, expect, it } from 'vitest';
import { validateMessagesRequest, validateMessagesRequestCached, type MessageSchemaCache } from '../../src/testing/validateRequest.js';
import { seededRandom } from '../corpus/corpus.js';

type Json = Record<string, unknown>;

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

const TOOLS = [{ name: 'work', description: 'works', input_schema: { type: 'object' } }];

interface Conversation {
  /** Frozen messages sent so far (each request reuses these objects). */
  messages: Json[];
  nextId: number;
}

/** A generator of conversations and their next requests, some of them invalid on purpose. */
function fuzz(seed: number) {
  const random = seededRandom(seed);
  const pick = <T,>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const chance = (p: number): boolean => random() < p;
  const cache = (): Json => (chance(0.15) ? { cache_control: { type: 'ephemeral' } } : {});

  const openingUser = (n: number): Json =>
    chance(0.5) ? { role: 'user', content: `task ${n}` } : { role: 'user', content: [{ type: 'text', text: `task ${n}`, ...cache() }] };

  /** A plausible next message for `messages`, made wrong in one way now and then. */
  const nextMessage = (c: Conversation, messages: readonly Json[]): Json => {
    const last = messages[messages.length - 1];
    const uses = last?.['role'] === 'assistant' && Array.isArray(last['content']) ? (last['content'] as Json[]).filter((b) => b['type'] === 'tool_use') : [];
    const fault = chance(0.25) ? pick(['role', 'dupId', 'empty', 'unanswered', 'wrongResult', 'resultLate', 'thinkingLast', 'emptyText', 'badType', 'extraResult']) : undefined;
    if (last?.['role'] === 'assistant') {
      if (fault === 'role') return { role: 'assistant', content: 'again' };
      if (fault === 'empty') return { role: 'user', content: [] };
      const results: Json[] = uses
        .filter((_, k) => !(fault === 'unanswered' && k === 0))
        .map((u) => ({ type: 'tool_result', tool_use_id: fault === 'wrongResult' ? 'toolu_nowhere' : u['id'], content: 'ok', ...cache() }));
      if (fault === 'extraResult') results.push({ type: 'tool_result', tool_use_id: 'toolu_nowhere', content: 'stray' });
      const text = { type: 'text', text: fault === 'emptyText' ? '' : 'go on', ...cache() };
      const content = fault === 'resultLate' && results.length > 0 ? [text, ...results] : results.length > 0 && chance(0.7) ? results : [...results, text];
      return { role: 'user', content };
    }
    if (fault === 'role') return { role: 'user', content: 'me again' };
    if (fault === 'empty') return { role: 'assistant', content: '' };
    const content: Json[] = [];
    if (fault === 'badType') content.push({ type: 'tool_result', tool_use_id: 'x', content: 'misplaced' });
    if (chance(0.2)) content.push({ type: 'thinking', thinking: 'hmm', signature: chance(0.9) ? 'sig' : '' });
    if (chance(0.6)) content.push({ type: 'text', text: 'working', ...cache() });
    const tools = fault === 'thinkingLast' ? 0 : Math.floor(random() * 3);
    for (let k = 0; k < tools; k++) {
      const earlier = fault === 'dupId' ? idsIn(messages) : [];
      const id = earlier.length > 0 ? pick(earlier) : `toolu_${c.nextId++}`;
      content.push({ type: 'tool_use', id, name: 'work', input: { k }, ...cache() });
    }
    if (fault === 'thinkingLast') content.push({ type: 'thinking', thinking: 'end', signature: 'sig' });
    if (content.length === 0) content.push({ type: 'text', text: 'done' });
    return { role: 'assistant', content };
  };

  const body = (messages: readonly Json[]): Json => {
    const extra: Json = {};
    if (chance(0.1)) extra['system'] = [{ type: 'text', text: 'be brief', ...cache() }];
    if (chance(0.08)) extra['thinking'] = { type: 'enabled', budget_tokens: chance(0.9) ? 2048 : 512 };
    if (chance(0.03)) extra['tools'] = [...TOOLS, TOOLS[0]];
    if (chance(0.03)) extra['tool_choice'] = { type: 'tool', name: 'missing' };
    if (chance(0.02)) extra['max_tokens'] = -1; // a schema failure: the plain path's mixed errors
    return deepFreeze({ model: 'claude-sonnet-4-5', max_tokens: 4096, tools: TOOLS, ...extra, messages: [...messages] });
  };

  return { random, pick, chance, openingUser, nextMessage, body };
}

/** The tool_use ids in `messages`. */
function idsIn(messages: readonly Json[]): string[] {
  const ids: string[] = [];
  for (const m of messages) if (Array.isArray(m['content'])) for (const b of m['content'] as Json[]) if (b['type'] === 'tool_use') ids.push(b['id'] as string);
  return ids;
}

describe('validateMessagesRequestCached', () => {
  it('gives the plain validator’s errors, word for word, over 3,000 bodies of interleaved and forking conversations', () => {
    const f = fuzz(20_261_203);
    const schemaCache: MessageSchemaCache = new WeakSet();
    // Two openings are shared by several conversations: the same frozen first message, different histories.
    const sharedOpenings = [deepFreeze(f.openingUser(0)), deepFreeze(f.openingUser(1))];
    const conversations: Conversation[] = Array.from({ length: 12 }, (_, n) => ({
      messages: [n < 6 ? sharedOpenings[n % 2]! : deepFreeze(f.openingUser(n))],
      nextId: 0,
    }));
    // Never valid: opened by the assistant, or by a user's stray tool_result.
    conversations.push({ messages: [deepFreeze({ role: 'assistant', content: 'I start' })], nextId: 0 });
    conversations.push({ messages: [deepFreeze({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_x', content: 'early' }] })], nextId: 0 });
    let invalid = 0;
    let extendedFromKept = 0;
    for (let round = 0; round < 3_000; round++) {
      const c = f.pick(conversations);
      let messages = c.messages;
      const action = f.random();
      const earlierPoint = (): Json[] => messages.slice(0, 1 + Math.floor(f.random() * (messages.length - 1)));
      let append = true;
      if (action < 0.1 && messages.length > 2) messages = earlierPoint(); // then on from an earlier point
      else if (action < 0.15 && messages.length > 1) {
        messages = earlierPoint(); // an earlier body sent again, nothing new
        append = false;
      } else if (action < 0.2) append = false; // the same history again
      else if (action < 0.4 && messages.length > 1) messages = messages.slice(0, -1); // its last message replaced
      if (append) {
        // The usual turn: one or two new messages at the end.
        messages = [...messages, deepFreeze(f.nextMessage(c, messages))];
        if (f.chance(0.5)) messages = [...messages, deepFreeze(f.nextMessage(c, messages))];
      }
      const body = f.body(messages);
      const expected = validateMessagesRequest(body);
      expect(validateMessagesRequestCached(body, schemaCache)).toEqual(expected);
      if (expected.length > 0) invalid++;
      else {
        if (messages.length > c.messages.length && messages[c.messages.length - 1] === c.messages[c.messages.length - 1]) extendedFromKept++;
        // A valid history goes on from here (at most ~30 messages, then the conversation starts over).
        c.messages = messages.length < 30 ? messages : [c.messages[0]!];
      }
    }
    // Both kinds were exercised, and most valid bodies extended a history validated before.
    expect(invalid).toBeGreaterThan(1_000);
    expect(3_000 - invalid).toBeGreaterThan(1_000);
    expect(extendedFromKept).toBeGreaterThan(600);
  });

  it('looks again at a former last message once it is no longer last (an empty assistant prefill)', () => {
    const schemaCache: MessageSchemaCache = new WeakSet();
    const user = deepFreeze({ role: 'user', content: 'hi' });
    const prefill = deepFreeze({ role: 'assistant', content: '' });
    const first = deepFreeze({ model: 'm', max_tokens: 10, messages: [user, prefill] });
    expect(validateMessagesRequestCached(first, schemaCache)).toEqual([]);
    const second = deepFreeze({ model: 'm', max_tokens: 10, messages: [user, prefill, deepFreeze({ role: 'user', content: 'more' })] });
    const errors = validateMessagesRequestCached(second, schemaCache);
    expect(errors).toEqual(validateMessagesRequest(second));
    expect(errors).toEqual(['messages[1]: content must not be empty (only a final assistant message may be empty)']);
  });

  it('finds a new tool_use id that repeats one of the reused messages', () => {
    const schemaCache: MessageSchemaCache = new WeakSet();
    const use = (id: string) => deepFreeze({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'work', input: {} }] });
    const result = (id: string) => deepFreeze({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'ok' }] });
    const history = [deepFreeze({ role: 'user', content: 'go' }), use('toolu_a'), result('toolu_a'), use('toolu_b'), result('toolu_b')];
    expect(validateMessagesRequestCached(deepFreeze({ model: 'm', max_tokens: 10, messages: history }), schemaCache)).toEqual([]);
    const again = deepFreeze({ model: 'm', max_tokens: 10, messages: [...history, use('toolu_a'), result('toolu_a')] });
    const errors = validateMessagesRequestCached(again, schemaCache);
    expect(errors).toEqual(validateMessagesRequest(again));
    expect(errors).toEqual(['messages[5].content[0]: duplicate tool_use id "toolu_a" (first used in messages[1])']);
  });

  it('counts the reused messages’ cache breakpoints with the new ones', () => {
    const schemaCache: MessageSchemaCache = new WeakSet();
    const cached = (role: string, text: string) => deepFreeze({ role, content: [{ type: 'text', text, cache_control: { type: 'ephemeral' } }] });
    const history = [cached('user', 'a'), cached('assistant', 'b'), cached('user', 'c'), cached('assistant', 'd')];
    const four = deepFreeze({ model: 'm', max_tokens: 10, messages: history });
    expect(validateMessagesRequestCached(four, schemaCache)).toEqual([]);
    const five = deepFreeze({ model: 'm', max_tokens: 10, messages: [...history, cached('user', 'e')] });
    const errors = validateMessagesRequestCached(five, schemaCache);
    expect(errors).toEqual(validateMessagesRequest(five));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^request: 5 blocks have cache_control/);
  });
});
