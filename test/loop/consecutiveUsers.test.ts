/**
 * Regression (found by test/reliability/faults.property.test.ts): a history that ends with a user
 * message (a run cut before the model answered, then resumed) plus a new prompt was sent as two
 * user messages in a row, which the API refuses. The request now joins them; the history itself
 * (and the transcript) keeps both messages.
 */
import { describe, expect, it } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { agentLoop } from '../../src/loop/agentLoop.js';
import { joinConsecutiveUsers } from '../../src/loop/messages.js';
import type { MessageParam } from '../../src/protocol/content.js';
import { validateMessagesRequest } from '../../src/testing/validateRequest.js';
import { message, runOverHttp, syncModel, text } from './helpers.js';

describe('joinConsecutiveUsers', () => {
  const u = (t: string): MessageParam => ({ role: 'user', content: t });
  const a = (t: string): MessageParam => ({ role: 'assistant', content: [{ type: 'text', text: t }] });

  it('returns the very same array when roles already alternate (no copy on the usual path)', () => {
    const history = [u('1'), a('2'), u('3')];
    expect(joinConsecutiveUsers(history)).toBe(history);
    const empty: MessageParam[] = [];
    expect(joinConsecutiveUsers(empty)).toBe(empty);
  });

  it('joins runs of user messages anywhere, string content becoming text blocks, in order', () => {
    const joined = joinConsecutiveUsers([u('1'), u('2'), a('x'), u('3'), { role: 'user', content: [{ type: 'text', text: '4' }] }, u('5')]);
    expect(joined).toEqual([
      { role: 'user', content: [{ type: 'text', text: '1' }, { type: 'text', text: '2' }] },
      a('x'),
      { role: 'user', content: [{ type: 'text', text: '3' }, { type: 'text', text: '4' }, { type: 'text', text: '5' }] },
    ]);
  });
});

describe('a history ending with a user message, continued with a prompt', () => {
  it('sends one valid user message carrying both texts (fake model)', async () => {
    const model = syncModel(() => message([text('ok')]));
    const events = await lastValueFrom(
      agentLoop({
        model: 'claude-sonnet-4-5',
        messages: [{ role: 'user', content: 'first, never answered' }],
        prompt: 'second',
        deps: { callModel: model.callModel },
      }).pipe(toArray()),
    );
    expect(events[events.length - 1]).toMatchObject({ type: 'terminal', reason: 'completed' });
    const sent = model.requests[0]!;
    expect(validateMessagesRequest(sent)).toEqual([]);
    expect(sent.messages).toEqual([
      // One user message; the loop's cache breakpoint sits on its last block.
      { role: 'user', content: [{ type: 'text', text: 'first, never answered' }, { type: 'text', text: 'second', cache_control: { type: 'ephemeral' } }] },
    ]);
  });

  it('is accepted by the scripted server (real HTTP, its validator)', async () => {
    const run = await runOverHttp([message([text('ok')])], {
      messages: [{ role: 'user', content: 'first' }],
      prompt: 'second',
    });
    expect(run.terminal.reason).toBe('completed');
    expect(run.requests.map((r) => r.validationErrors)).toEqual([[]]);
  });
});
