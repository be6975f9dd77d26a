/**
 * Regression (found by test/reliability/faults.property.test.ts): a reply with nothing
 * replayable (no content, or only thinking) that still needs a follow-up user text — cut by
 * max_tokens, announcing a tool call without one, or blocked by a Stop hook — made the next
 * request carry two user messages in a row, which the API refuses. The text now joins the last
 * user message.
 */
import { describe, expect, it } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { agentLoop } from '../../src/loop/agentLoop.js';
import { validateMessagesRequest } from '../../src/testing/validateRequest.js';
import type { LoopEvent } from '../../src/loop/types.js';
import type { ScriptedMessage } from '../../src/testing/script.js';
import { message, syncModel, text } from './helpers.js';

async function run(first: ScriptedMessage, stopBlocks = false) {
  let blocked = false;
  const model = syncModel((n) => (n === 0 ? first : message([text('done')])));
  const events = await lastValueFrom(
    agentLoop({
      model: 'claude-sonnet-4-5',
      prompt: 'go',
      deps: { callModel: model.callModel },
      ...(stopBlocks
        ? {
            hooks: {
              stop: () => {
                if (blocked) return {};
                blocked = true;
                return { block: 'keep going' };
              },
            },
          }
        : {}),
    }).pipe(toArray()),
  );
  return { events: events as LoopEvent[], requests: model.requests };
}

const cases: [string, ScriptedMessage, boolean, string][] = [
  ['empty reply cut by max_tokens', message([], { stopReason: 'max_tokens' }), false, 'output limit'],
  ['thinking-only reply cut by max_tokens', message([{ type: 'thinking', thinking: 'hm', signature: 's' }], { stopReason: 'max_tokens' }), false, 'output limit'],
  ['empty reply announcing a tool call', message([], { stopReason: 'tool_use' }), false, 'no complete tool call'],
  ['empty reply blocked by the Stop hook', message([]), true, 'keep going'],
];

describe('follow-up text after a reply with nothing replayable', () => {
  it.each(cases)('%s: the next request alternates roles and carries the text', async (_name, first, stopBlocks, needle) => {
    const { events, requests } = await run(first, stopBlocks);
    expect(events.filter((e) => e.type === 'terminal')).toHaveLength(1);
    expect(events[events.length - 1]).toMatchObject({ type: 'terminal', reason: 'completed' });
    expect(requests).toHaveLength(2);
    for (const r of requests) expect(validateMessagesRequest(r)).toEqual([]);
    const second = requests[1]!;
    expect(second.messages).toHaveLength(1);
    expect(JSON.stringify(second.messages[0])).toContain(needle);
    expect(second.messages[0]?.role).toBe('user');
  });
});
