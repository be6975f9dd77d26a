/**
 * Prompt caching as the scripted server bills it, so a test (or a user's own run) sees what
 * caching saves. A request is read as its prefix in the API's order, tools, then system, then
 * messages, one segment per tool, system block and content block, `cache_control` markers
 * ignored (moving a breakpoint does not change the prefix). Then:
 *
 * - cache read: the longest prefix, ending at a segment boundary at most `lookback` segments
 *   before one of this request's breakpoints, that an earlier request wrote;
 * - cache write: from there to this request's last breakpoint (every breakpoint's prefix is
 *   then stored);
 * - input_tokens: the rest, after the last breakpoint.
 *
 * Prefixes shorter than `minTokens` are not cached (the API's minimum for Sonnet and Opus is
 * 1024 tokens). Tokens are estimated at 4 characters each, as elsewhere in the scripted server;
 * the three counts add up to the request's whole estimate. Entries never expire (the API's
 * 5-minute lifetime is longer than any test).
 */
import { createHash, type Hash } from 'node:crypto';
import type { MessagesRequest } from '../protocol/request.js';

export interface PromptCacheOptions {
  /** The shortest prefix that is cached, in tokens. Default 1024. */
  readonly minTokens?: number;
  /** How many segments before a breakpoint the cache is looked up. Default 20, as the API. */
  readonly lookback?: number;
}

/** How one request is billed, in tokens. */
export interface CacheBill {
  readonly inputTokens: number;
  readonly cacheReadInputTokens: number;
  readonly cacheCreationInputTokens: number;
}

export interface PromptCacheSimulator {
  /** Bills a request whose whole input is `totalTokens`, and stores its breakpoints' prefixes. */
  bill(request: MessagesRequest, totalTokens: number): CacheBill;
}

interface Boundary {
  readonly tokens: number;
  readonly digest: string;
  readonly breakpoint: boolean;
}

export function createPromptCacheSimulator(options: PromptCacheOptions = {}): PromptCacheSimulator {
  const minTokens = options.minTokens ?? 1024;
  const lookback = options.lookback ?? 20;
  const stored = new Set<string>();
  return {
    bill(request, totalTokens) {
      const boundaries = prefixBoundaries(request);
      const breakpoints = boundaries.flatMap((b, i) => (b.breakpoint ? [i] : []));
      if (breakpoints.length === 0) return { inputTokens: totalTokens, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 };
      let read = 0;
      for (const at of breakpoints) {
        for (let i = at; i >= Math.max(0, at - lookback); i--) {
          const b = boundaries[i]!;
          if (b.tokens > read && stored.has(b.digest)) read = b.tokens;
        }
      }
      const last = boundaries[breakpoints[breakpoints.length - 1]!]!;
      const cachedUpTo = last.tokens >= minTokens ? Math.min(last.tokens, totalTokens) : read;
      for (const at of breakpoints) if (boundaries[at]!.tokens >= minTokens) stored.add(boundaries[at]!.digest);
      const readTokens = Math.min(read, totalTokens);
      const writeTokens = Math.max(0, cachedUpTo - readTokens);
      return { inputTokens: totalTokens - readTokens - writeTokens, cacheReadInputTokens: readTokens, cacheCreationInputTokens: writeTokens };
    },
  };
}

/** Every segment boundary of the request's prefix: its size so far, its digest, whether it is marked. */
function prefixBoundaries(request: MessagesRequest): Boundary[] {
  const hash = createHash('sha256');
  const out: Boundary[] = [];
  let chars = 0;
  const add = (segment: object, prefix: string): void => {
    const { cache_control, ...rest } = segment as { cache_control?: unknown };
    const text = prefix + JSON.stringify(rest);
    chars += text.length;
    hash.update(text);
    out.push({ tokens: Math.ceil(chars / 4), digest: digestOf(hash), breakpoint: cache_control !== undefined });
  };
  for (const tool of request.tools ?? []) add(tool, 'tool:');
  if (typeof request.system === 'string') add({ type: 'text', text: request.system }, 'system:');
  else for (const block of request.system ?? []) add(block, 'system:');
  request.messages.forEach((message, i) => {
    const content = typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
    for (const block of content) add(block as object, `${i}:${message.role}:`);
  });
  return out;
}

function digestOf(hash: Hash): string {
  return hash.copy().digest('hex');
}
