/**
 * PreToolUse/PostToolUse `additionalContext` reaches the model: the next request's user message
 * carries it as text blocks after the tool_result blocks, in tool_use order. Over HTTP.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/tools/defineTool.js';
import type { ContentBlock } from '../../src/protocol/content.js';
import { message, runOverHttp, text, toolUse } from './helpers.js';

const echo = defineTool({
  name: 'echo',
  description: 'Echoes',
  inputSchema: z.strictObject({ x: z.string() }),
  isConcurrencySafe: true,
  call: (input: { x: string }) => `echo ${input.x}`,
});

describe('hook additionalContext in the next request', () => {
  it('follows the tool_result blocks of the same user message, naming the call, in tool_use order', async () => {
    const r = await runOverHttp(
      [message([toolUse('echo', { x: 'a' }, 'toolu_a'), toolUse('echo', { x: 'b' }, 'toolu_b')]), message([text('done')])],
      {
        tools: [echo],
        hooks: {
          preToolUse: [({ toolUseId }) => (toolUseId === 'toolu_b' ? { additionalContext: 'b is read-only today' } : {})],
          postToolUse: [({ toolUseId }) => (toolUseId === 'toolu_a' ? { additionalContext: 'a output was checked' } : {})],
        },
      },
    );
    expect(r.terminal.reason).toBe('completed');
    expect(r.requests).toHaveLength(2);
    for (const request of r.requests) expect(request.validationErrors).toEqual([]);
    const last = r.requests[1]!.body!.messages.at(-1)!;
    expect(last.role).toBe('user');
    const content = last.content as ContentBlock[];
    expect(content.map((b) => b.type)).toEqual(['tool_result', 'tool_result', 'text', 'text']);
    expect(content.slice(0, 2).map((b) => (b.type === 'tool_result' ? b.tool_use_id : ''))).toEqual(['toolu_a', 'toolu_b']);
    const texts = content.slice(2).map((b) => (b.type === 'text' ? b.text : ''));
    expect(texts[0]).toMatch(/echo call toolu_a/);
    expect(texts[0]).toContain('a output was checked');
    expect(texts[1]).toMatch(/echo call toolu_b/);
    expect(texts[1]).toContain('b is read-only today');
    // The request's last block carries the cache breakpoint; the user_message event (and so the
    // transcript) holds the same message without it (breakpoints are added per request, never kept).
    expect(content.map((b) => 'cache_control' in b)).toEqual([false, false, false, true]);
    const userMessage = r.events.find((e) => e.type === 'user_message' && e.reason === 'tool_results');
    const { cache_control: _mark, ...lastBlock } = content[3] as ContentBlock & { cache_control?: unknown };
    expect(userMessage?.type === 'user_message' && userMessage.message).toEqual({ ...last, content: [...content.slice(0, 3), lastBlock] });
  });

  it('without hook context the user message holds only the results', async () => {
    const r = await runOverHttp([message([toolUse('echo', { x: 'a' }, 'toolu_a')]), message([text('done')])], { tools: [echo] });
    const content = r.requests[1]!.body!.messages.at(-1)!.content as ContentBlock[];
    expect(content.map((b) => b.type)).toEqual(['tool_result']);
  });
});
