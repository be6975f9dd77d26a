/** `usualRequest` builds exactly what the spread in `callShaped` builds: keys, values, order. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { usualRequest } from '../../src/loop/modelPhase.js';
import type { AgentLoopOptions } from '../../src/loop/options.js';
import { buildRequestBase } from '../../src/loop/runContext.js';
import type { MessageParam } from '../../src/protocol/content.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { defineTool } from '../../src/tools/defineTool.js';

const tool = defineTool({ name: 'echo', description: 'echoes', inputSchema: z.strictObject({ x: z.string() }), isConcurrencySafe: true, call: ({ x }: { x: string }) => x });
const messages: MessageParam[] = [{ role: 'user', content: 'go' }];

function spread(base: MessagesRequest, model: string, container: string | undefined): MessagesRequest {
  return { ...base, model, ...(container !== undefined ? { container } : {}), messages };
}

describe('usualRequest', () => {
  const systems = [undefined, 'be brief', [{ type: 'text' as const, text: 'be brief' }]];
  const toolSets = [[], [tool]];
  for (const system of systems) {
    for (const tools of toolSets) {
      it(`system ${JSON.stringify(system)}, ${tools.length} tool(s): the spread's request`, () => {
        const options = { model: 'm', prompt: 'go', ...(system !== undefined ? { system } : {}) } as AgentLoopOptions;
        const base = buildRequestBase(options, 1024, tools);
        const built = usualRequest(base, 'other-model', undefined, messages);
        const expected = spread(base, 'other-model', undefined);
        expect(built).toStrictEqual(expected);
        expect(Object.keys(built!)).toEqual(Object.keys(expected));
      });
    }
  }

  it('leaves thinking and a container to the spread', () => {
    const thinking = buildRequestBase({ model: 'm', prompt: 'go', thinking: { type: 'enabled', budget_tokens: 2000 } } as AgentLoopOptions, 4096, []);
    expect(usualRequest(thinking, 'm', undefined, messages)).toBeUndefined();
    expect(usualRequest(buildRequestBase({ model: 'm', prompt: 'go' } as AgentLoopOptions, 1024, []), 'm', 'ctr_1', messages)).toBeUndefined();
  });
});
