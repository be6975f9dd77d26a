import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL_LIMITS, modelLimits } from '../../src/context/models.js';
import {
  IMAGE_TOKENS,
  contextThresholds,
  countTokens,
  estimateMessageTokens,
  estimateMessagesTokens,
  estimateTextTokens,
  usageTokens,
} from '../../src/context/tokens.js';
import { toolCall, toolResult, user } from './histories.js';

describe('model limits', () => {
  it('matches dated ids by the longest prefix', () => {
    expect(modelLimits('claude-sonnet-4-5-20250929')).toEqual({ contextWindow: 200_000, maxOutputTokens: 64_000 });
    expect(modelLimits('claude-3-5-haiku-20241022').maxOutputTokens).toBe(8_192);
  });
  it('falls back to the default for unknown models, and lets overrides win', () => {
    expect(modelLimits('some-new-model')).toEqual(DEFAULT_MODEL_LIMITS);
    expect(modelLimits('claude-sonnet-4-5', { claude: { contextWindow: 1_000_000, maxOutputTokens: 64_000 } }).contextWindow).toBe(1_000_000);
    expect(modelLimits('x', {}, { contextWindow: 10, maxOutputTokens: 1 })).toEqual({ contextWindow: 10, maxOutputTokens: 1 });
  });
});

describe('thresholds', () => {
  it('reserves min(maxOutput, 20k) and puts auto-compact 13k and blocking 3k below the effective window', () => {
    expect(contextThresholds({ contextWindow: 200_000, maxOutputTokens: 64_000 })).toEqual({
      contextWindow: 200_000,
      effectiveWindow: 180_000,
      autoCompactAt: 167_000,
      blockingAt: 177_000,
    });
    expect(contextThresholds({ contextWindow: 200_000, maxOutputTokens: 8_192 }).effectiveWindow).toBe(191_808);
  });
});

describe('token estimate', () => {
  it('rounds up: one character is one token', () => {
    expect(estimateTextTokens(1)).toBe(1);
    expect(estimateTextTokens(3)).toBe(1);
    expect(estimateTextTokens(4)).toBe(2);
  });
  it('grows with text, tool input JSON and tool results, and prices images at a fixed cost', () => {
    const short = estimateMessageTokens(user('a'));
    const long = estimateMessageTokens(user('a'.repeat(3_000)));
    expect(long - short).toBeGreaterThanOrEqual(999);
    const bigInput = estimateMessageTokens(toolCall('t1', 'Write', { content: 'y'.repeat(900) }));
    expect(bigInput).toBeGreaterThanOrEqual(300);
    expect(estimateMessageTokens(toolResult('t1', 'z'.repeat(600)))).toBeGreaterThanOrEqual(200);
    const image = estimateMessageTokens({
      role: 'user',
      content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }],
    });
    expect(image).toBeGreaterThanOrEqual(IMAGE_TOKENS);
  });
  it('is conservative against a chars/4 reality', () => {
    const messages = [user('w'.repeat(40_000)), toolCall('a'), toolResult('a', 'q'.repeat(40_000))];
    expect(estimateMessagesTokens(messages)).toBeGreaterThan(80_000 / 4);
  });
});

describe('countTokens', () => {
  const messages = [user('hello'), toolCall('a'), toolResult('a', 'r'.repeat(300))];
  it('adds the last usage (input + cache read + cache creation + output) to the estimate of what came after it', () => {
    const usage = { input_tokens: 1_000, cache_read_input_tokens: 200, cache_creation_input_tokens: 30, output_tokens: 4 };
    expect(usageTokens(usage)).toBe(1_234);
    expect(countTokens({ messages, lastUsage: usage, messagesSinceUsage: 2 })).toBe(1_234 + estimateMessageTokens(messages[2]!));
  });
  it('estimates everything without usage', () => {
    expect(countTokens({ messages, lastUsage: undefined, messagesSinceUsage: 0 })).toBe(estimateMessagesTokens(messages));
  });
});
