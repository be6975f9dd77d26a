/**
 * A response that outgrows the client's `maxResponseChars` (a server streaming valid deltas
 * forever) ends the loop with a typed error terminal whose history is a valid request: the tool
 * call the response had already made is answered.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import type { MessageParam } from '../../src/protocol/content.js';
import { validateMessagesRequest } from '../../src/testing/validateRequest.js';
import { defineTool } from '../../src/tools/defineTool.js';
import { runOverHttp, terminals } from './helpers.js';

describe('loop: a response past maxResponseChars', () => {
  it('ends model_error (buffer_overflow) with every tool_use answered and a valid history', async () => {
    let ran = 0;
    const echo = defineTool({
      name: 'echo',
      description: 'Echoes its input',
      inputSchema: z.strictObject({ say: z.string() }),
      isConcurrencySafe: true,
      call: ({ say }: { say: string }) => {
        ran++;
        return say;
      },
    });
    const { events, terminal, requests } = await runOverHttp(
      [
        {
          kind: 'message',
          blocks: [
            { type: 'tool_use', id: 'toolu_1', name: 'echo', input: { say: 'hi' } },
            // Then text that never ends as far as the cap is concerned.
            { type: 'text', text: 'x'.repeat(40_000), chunkSize: 10, deltaDelayMs: 1 },
          ],
        },
      ],
      { tools: [echo], maxRetries: 3, clientOptions: { maxResponseChars: 30_000 } },
    );
    expect(terminals(events)).toHaveLength(1);
    expect(terminal.reason).toBe('model_error');
    expect(terminal.error).toMatchObject({ kind: 'stream_protocol', message: expect.stringContaining('maxResponseChars') });
    expect(requests).toHaveLength(1); // not retried
    expect(ran).toBe(1); // the call streamed before the overflow started (tools start while streaming)
    const messages = terminal.messages as MessageParam[];
    const assistant = messages[1];
    expect(assistant?.role).toBe('assistant');
    const uses = (assistant?.content as readonly { type: string; id?: string }[]).filter((b) => b.type === 'tool_use').map((b) => b.id);
    expect(uses).toEqual(['toolu_1']);
    const answered = (messages[2]?.content as { type: string; tool_use_id?: string }[]).filter((b) => b.type === 'tool_result').map((b) => b.tool_use_id);
    expect(answered).toEqual(['toolu_1']);
    // The history (ending with the results) is a request the API would accept.
    expect(messages).toHaveLength(3);
    expect(validateMessagesRequest({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages })).toEqual([]);
  });
});
