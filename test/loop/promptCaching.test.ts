/**
 * Prompt caching (SPEC §14): breakpoints where Claude Code places them, never more than 4, none
 * when turned off; the scripted server bills a repeated prefix as a cache read; cache tokens are
 * priced at 1.25x (write) and 0.1x (read) of input.
 */
import { describe, expect, it } from 'vitest';
import { runCachingSession } from '../../bench/cachingSession.js';
import { costOf, DEFAULT_PRICES, priceFor } from '../../src/loop/pricing.js';
import { countBreakpoints, withCacheBreakpoints } from '../../src/protocol/cacheBreakpoints.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { createPromptCacheSimulator } from '../../src/testing/promptCache.js';
import { echoTool, runOverHttp } from './helpers.js';

const EPHEMERAL = { type: 'ephemeral' } as const;
const tool = (name: string) => ({ name, description: name, input_schema: { type: 'object' as const } });
const base: MessagesRequest = {
  model: 'claude-sonnet-4-6',
  max_tokens: 1000,
  system: 'You are helpful.',
  tools: [tool('A'), tool('B')],
  messages: [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: [{ type: 'text', text: 'hello' }, { type: 'tool_use', id: 't1', name: 'A', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
  ],
};

describe('withCacheBreakpoints', () => {
  it('marks the system prompt, the last tool and the last block of the last message, leaving the input unchanged', () => {
    const before = JSON.stringify(base);
    const out = withCacheBreakpoints(base);
    expect(JSON.stringify(base)).toBe(before);
    expect(out.system).toEqual([{ type: 'text', text: 'You are helpful.', cache_control: EPHEMERAL }]);
    expect(out.tools?.map((t) => t.cache_control)).toEqual([undefined, EPHEMERAL]);
    expect(out.messages.at(-1)).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok', cache_control: EPHEMERAL }] });
    expect(out.messages.slice(0, -1)).toEqual(base.messages.slice(0, -1));
    expect(countBreakpoints(out)).toBe(3);
  });

  it('counts breakpoints the caller placed and never goes over 4', () => {
    const marked = (text: string) => ({ type: 'text' as const, text, cache_control: EPHEMERAL });
    const busy: MessagesRequest = { ...base, messages: [{ role: 'user', content: [marked('a'), marked('b'), marked('c')] }] };
    const out = withCacheBreakpoints(busy);
    expect(countBreakpoints(out)).toBe(4);
    const full: MessagesRequest = { ...busy, messages: [{ role: 'user', content: [marked('a'), marked('b'), marked('c'), marked('d')] }] };
    expect(withCacheBreakpoints(full)).toBe(full);
  });

  it('turns a string message into a marked text block, and skips blocks that cannot carry a marker', () => {
    expect(withCacheBreakpoints({ ...base, tools: undefined, system: undefined, messages: [{ role: 'user', content: 'hi' }] }).messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi', cache_control: EPHEMERAL }] },
    ]);
    const paused: MessagesRequest = {
      ...base,
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [{ type: 'text', text: 'x' }, { type: 'thinking', thinking: 't', signature: 's' }] },
      ],
    };
    expect(withCacheBreakpoints(paused).messages.at(-1)?.content).toEqual([
      { type: 'text', text: 'x', cache_control: EPHEMERAL },
      { type: 'thinking', thinking: 't', signature: 's' },
    ]);
  });
});

describe('the loop places them on every request', () => {
  it('three breakpoints per request, the message one moving forward; none with promptCaching: false; the default is on', async () => {
    const script = () => [
      { kind: 'message' as const, blocks: [{ type: 'tool_use' as const, name: 'echo', input: { x: 'a' } }] },
      { kind: 'message' as const, blocks: [{ type: 'text' as const, text: 'done' }] },
    ];
    const on = await runOverHttp(script(), { tools: [echoTool], system: 'Be brief.', promptCaching: true });
    for (const r of on.requests) {
      expect(r.validationErrors).toEqual([]);
      expect(countBreakpoints(r.body!)).toBe(3);
    }
    const lastMarked = (i: number) => {
      const messages = on.requests[i]!.body!.messages;
      return messages.findIndex((m) => Array.isArray(m.content) && m.content.some((b) => 'cache_control' in b));
    };
    expect([lastMarked(0), lastMarked(1)]).toEqual([0, 2]);
    const off = await runOverHttp(script(), { tools: [echoTool], system: 'Be brief.', promptCaching: false });
    for (const r of off.requests) expect(countBreakpoints(r.body!)).toBe(0);
    // The default is on, as Claude Code sends them: the same requests as with promptCaching: true.
    const unset = await runOverHttp(script(), { tools: [echoTool], system: 'Be brief.' });
    expect(unset.requests.map((r) => r.body)).toEqual(on.requests.map((r) => r.body));
  });
});

describe('the scripted server bills caching', () => {
  const big = (turns: number): MessagesRequest => ({
    model: 'm',
    max_tokens: 10,
    system: [{ type: 'text', text: 'S'.repeat(8_000), cache_control: EPHEMERAL }],
    messages: Array.from({ length: turns }, (_, i) => ({ role: i % 2 === 0 ? ('user' as const) : ('assistant' as const), content: `turn ${i} ${'x'.repeat(400)}` })),
  });

  it('a prefix an earlier request wrote is read; what follows up to the last breakpoint is written', () => {
    const cache = createPromptCacheSimulator();
    const first = cache.bill(withCacheBreakpoints(big(1)), 3_000);
    expect(first.cacheReadInputTokens).toBe(0);
    expect(first.cacheCreationInputTokens).toBeGreaterThan(2_000);
    const second = cache.bill(withCacheBreakpoints(big(3)), 3_400);
    expect(second.cacheReadInputTokens).toBe(first.cacheCreationInputTokens);
    expect(second.cacheCreationInputTokens).toBeGreaterThan(0);
    expect(second.inputTokens + second.cacheReadInputTokens + second.cacheCreationInputTokens).toBe(3_400);
  });

  it('nothing is cached below the minimum size, or without breakpoints', () => {
    const cache = createPromptCacheSimulator();
    const small: MessagesRequest = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] };
    expect(cache.bill(withCacheBreakpoints(small), 5)).toEqual({ inputTokens: 5, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 });
    expect(cache.bill(big(1), 3_000).cacheCreationInputTokens).toBeGreaterThan(0); // the system marker alone
    const unmarked = { ...big(1), system: 'S'.repeat(8_000) };
    expect(cache.bill(unmarked, 3_000)).toEqual({ inputTokens: 3_000, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 });
  });
});

describe('what caching saves', () => {
  it('prices cache writes at 1.25x and reads at 0.1x of input, for every model in the table', () => {
    for (const price of Object.values(DEFAULT_PRICES)) {
      expect(price.cacheWritePerMTok).toBeCloseTo(price.inputPerMTok * 1.25, 10);
      expect(price.cacheReadPerMTok).toBeCloseTo(price.inputPerMTok * 0.1, 10);
    }
    const sonnet = priceFor('claude-sonnet-4-6-20260217')!;
    expect(costOf({ input_tokens: 1e6, cache_creation_input_tokens: 1e6, cache_read_input_tokens: 1e6, output_tokens: 0 }, sonnet)).toBeCloseTo(3 + 3.75 + 0.3, 10);
  });

  it('a 20-turn tool session costs at most 0.35 of the same session without caching', async () => {
    const cached = await runCachingSession({ turns: 20, promptCaching: true });
    const uncached = await runCachingSession({ turns: 20, promptCaching: false });
    expect(cached.terminal.reason).toBe('completed');
    expect(cached.requests).toBe(20);
    expect(cached.terminal.usage.cacheReadInputTokens).toBeGreaterThan(0);
    expect(uncached.terminal.usage.cacheReadInputTokens).toBe(0);
    expect(cached.costUsd / uncached.costUsd).toBeLessThanOrEqual(0.35);
  });
});
