/** The input queue in virtual time: submissions during tools, interrupts, leftovers. */
import { describe, expect, it } from 'vitest';
import { createAgentRun } from '../src/loop/createAgentRun.js';
import type { LoopEvent } from '../src/loop/types.js';
import { ApiError } from '../src/errors.js';
import type { TransportOutput } from '../src/transport/types.js';
import { validateMessagesRequest } from '../src/testing/validateRequest.js';
import { message, text, toolUse } from '../test/loop/helpers.js';
import { createTestScheduler } from './helpers/testScheduler.js';
import { coldModel, replyMarble, submitAt, waitTool } from '../src/testing/index.js';


const lifecycle = (events: readonly LoopEvent[]) =>
  events.flatMap((e) => (e.type === 'command_lifecycle' ? [`${e.id}:${e.status}${e.seenByModel === undefined ? '' : e.seenByModel ? '+' : '-'}`] : []));

describe('createAgentRun input queue', () => {
  it('absorbs input submitted while a tool runs, next to its result', () => {
    createTestScheduler().run(({ cold, flush }) => {
      const r1 = replyMarble(message([toolUse('wait', {})]), { frame: 0, start: 1 });
      const r2 = replyMarble(message([text('done')]), { frame: 0, start: 1 });
      const { callModel, requests } = coldModel(cold<TransportOutput>(r1.marbles, r1.values), cold<TransportOutput>(r2.marbles, r2.values));
      const run = createAgentRun({ model: 'claude-sonnet-4-5', prompt: 'go', tools: [waitTool(10, { interrupt: 'block' })], deps: { callModel } });
      const events: LoopEvent[] = [];
      run.events$.subscribe((e) => events.push(e));
      submitAt(run, 4, 'also check the tests', { id: 'c1' });
      flush();
      expect(requests).toHaveLength(2);
      expect(requests[1]!.messages.at(-1)).toMatchObject({
        role: 'user',
        content: [{ type: 'tool_result' }, { type: 'text', text: 'also check the tests' }],
      });
      expect(lifecycle(events)).toEqual(['c1:queued', 'c1:started', 'c1:completed+']);
      expect(events.at(-1)).toMatchObject({ type: 'terminal', reason: 'completed' });
      for (const r of requests) expect(validateMessagesRequest(r)).toEqual([]);
    });
  });

  it('an interrupt while the model streams cancels the iteration and goes on with the input', () => {
    createTestScheduler().run(({ cold, flush, expectSubscriptions }) => {
      const slow = replyMarble({ ...message([text('a long answer')]), endDelayMs: 20 });
      const r2 = replyMarble(message([text('ok, switching')]), { frame: 0, start: 1 });
      const m1 = cold<TransportOutput>(slow.marbles, slow.values);
      const { callModel, requests } = coldModel(m1, cold<TransportOutput>(r2.marbles, r2.values));
      const run = createAgentRun({ model: 'claude-sonnet-4-5', prompt: 'go', deps: { callModel } });
      const events: LoopEvent[] = [];
      run.events$.subscribe((e) => events.push(e));
      submitAt(run, 5, 'stop, do this instead', { id: 'c1', interrupt: true });
      flush();
      expectSubscriptions(m1.subscriptions).toBe('^----!');
      expect(requests).toHaveLength(2);
      // The cut response left a text block; the input follows it as the next user message.
      expect(requests[1]!.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'stop, do this instead' }] });
      expect(events.at(-1)).toMatchObject({ type: 'terminal', reason: 'completed', turnCount: 2 });
      expect(lifecycle(events)).toEqual(['c1:queued', 'c1:started', 'c1:completed+']);
      for (const r of requests) expect(validateMessagesRequest(r)).toEqual([]);
    });
  });

  it("an interrupt waits while a 'block' tool runs; the tool finishes", () => {
    createTestScheduler().run(({ cold, flush }) => {
      const r1 = replyMarble(message([toolUse('wait', {})]), { frame: 0, start: 1 });
      const r2 = replyMarble(message([text('done')]), { frame: 0, start: 1 });
      const { callModel, requests } = coldModel(cold<TransportOutput>(r1.marbles, r1.values), cold<TransportOutput>(r2.marbles, r2.values));
      const run = createAgentRun({ model: 'claude-sonnet-4-5', prompt: 'go', tools: [waitTool(10, { interrupt: 'block' })], deps: { callModel } });
      const events: LoopEvent[] = [];
      run.events$.subscribe((e) => events.push(e));
      submitAt(run, 4, 'hurry', { id: 'c1', interrupt: true });
      flush();
      const result = events.find((e) => e.type === 'tool_result');
      expect(result).toMatchObject({ result: { content: 'waited 10' } });
      expect(requests[1]!.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'tool_result' }, { type: 'text', text: 'hurry' }] });
    });
  });

  it("an interrupt cancels 'cancel' tools with an interrupted result", () => {
    createTestScheduler().run(({ cold, flush }) => {
      const r1 = replyMarble(message([toolUse('wait', {})]), { frame: 0, start: 1 });
      const r2 = replyMarble(message([text('done')]), { frame: 0, start: 1 });
      const { callModel, requests } = coldModel(cold<TransportOutput>(r1.marbles, r1.values), cold<TransportOutput>(r2.marbles, r2.values));
      const run = createAgentRun({ model: 'claude-sonnet-4-5', prompt: 'go', tools: [waitTool(50, { interrupt: 'cancel' })], deps: { callModel } });
      const events: LoopEvent[] = [];
      run.events$.subscribe((e) => events.push(e));
      submitAt(run, 4, 'never mind', { id: 'c1', interrupt: true });
      flush();
      expect(requests).toHaveLength(2);
      const last = requests[1]!.messages.at(-1)!;
      expect(last).toMatchObject({ role: 'user', content: [{ type: 'tool_result', is_error: true }, { type: 'text', text: 'never mind' }] });
      expect(events.at(-1)).toMatchObject({ type: 'terminal', reason: 'completed' });
    });
  });

  it('input still queued when the run fails is discarded; absorbed input is cancelled', () => {
    createTestScheduler().run(({ cold, flush }) => {
      const m1 = cold<TransportOutput>('------#', {}, new ApiError(500, 'api_error', 'boom', false));
      const { callModel } = coldModel(m1);
      const run = createAgentRun({ model: 'claude-sonnet-4-5', prompt: 'go', deps: { callModel } });
      const events: LoopEvent[] = [];
      run.events$.subscribe((e) => events.push(e));
      submitAt(run, 2, 'later', { id: 'c1' });
      flush();
      expect(lifecycle(events)).toEqual(['c1:queued', 'c1:discarded']);
      expect(events.at(-1)).toMatchObject({ type: 'terminal', reason: 'api_error' });
      expect(run.submit('too late').accepted).toBe(false);
    });
  });

  it('input that arrives while the final answer streams starts one more turn', () => {
    createTestScheduler().run(({ cold, flush }) => {
      const r1 = replyMarble({ ...message([text('first answer')]), endDelayMs: 5 });
      const r2 = replyMarble(message([text('second answer')]), { frame: 0, start: 1 });
      const { callModel, requests } = coldModel(cold<TransportOutput>(r1.marbles, r1.values), cold<TransportOutput>(r2.marbles, r2.values));
      const run = createAgentRun({ model: 'claude-sonnet-4-5', prompt: 'go', deps: { callModel } });
      const events: LoopEvent[] = [];
      run.events$.subscribe((e) => events.push(e));
      submitAt(run, 2, 'and one more thing', { id: 'c1' });
      flush();
      expect(requests).toHaveLength(2);
      expect(events.at(-1)).toMatchObject({ type: 'terminal', reason: 'completed', lastAssistantText: 'second answer', turnCount: 2 });
      expect(lifecycle(events)).toEqual(['c1:queued', 'c1:started', 'c1:completed+']);
    });
  });
});
