/** `agentLoop({ input$ })`: user input drawn as a hot stream, its fate read off the output. */
import { describe, expect, it } from 'vitest';
import { agentLoop } from '../src/loop/agentLoop.js';
import type { Submission } from '../src/loop/runInput.js';
import type { LoopEvent } from '../src/loop/types.js';
import type { TransportOutput } from '../src/transport/types.js';
import { validateMessagesRequest } from '../src/testing/validateRequest.js';
import { message, text, toolUse } from '../test/loop/helpers.js';
import { coldModel, inputMarble, letters, replyMarble, waitTool } from '../src/testing/index.js';
import { createTestScheduler } from './helpers/testScheduler.js';

/** The lifecycle events and the terminal, as letters: q queued, s started, c completed, d discarded, X terminal. */
const LETTER: Record<string, string> = { queued: 'q', started: 's', completed: 'c', cancelled: 'x', discarded: 'd' };
const fate = letters((e: LoopEvent) => (e.type === 'terminal' ? 'X' : e.type === 'command_lifecycle' ? LETTER[e.status] : undefined));

describe('agentLoop input$', () => {
  it('a submission during a tool is absorbed next to its result and completes with the run', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions, flush }) => {
      const r1 = replyMarble(message([toolUse('wait', {})]), { frame: 0, start: 1 });
      const r2 = replyMarble(message([text('done')]), { frame: 0, start: 1 });
      const { callModel, requests } = coldModel(cold<TransportOutput>(r1.marbles, r1.values), cold<TransportOutput>(r2.marbles, r2.values));
      const typed = inputMarble('----a', { a: { id: 'c1', input: 'also check the tests' } });
      const input = hot<Submission>(typed.marbles, typed.values);
      //             -(m|)           first response: the tool call, wait runs 10 frames
      //                        -(m|)  the batch at 11 carries c1; second response
      const out = agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', tools: [waitTool(10)], input$: input, deps: { callModel } }).pipe(fate);
      expectObservable(out).toBe('----q------s(cX|)');
      expectSubscriptions(input.subscriptions).toBe('^-----------!');
      flush();
      expect(requests[1]!.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'tool_result' }, { type: 'text', text: 'also check the tests' }] });
      for (const r of requests) expect(validateMessagesRequest(r)).toEqual([]);
    });
  });

  it('an interrupt while the model streams cuts the iteration; the run goes on with the input', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions, flush }) => {
      const slow = replyMarble({ ...message([text('a long answer')]), endDelayMs: 20 });
      const r2 = replyMarble(message([text('ok, switching')]), { frame: 0, start: 4 });
      const m1 = cold<TransportOutput>(slow.marbles, slow.values);
      const { callModel, requests } = coldModel(m1, cold<TransportOutput>(r2.marbles, r2.values));
      const typed = inputMarble('-----i', { i: { id: 'c1', input: 'stop, do this instead', interrupt: true } });
      const input = hot<Submission>(typed.marbles, typed.values);
      const out = agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', input$: input, deps: { callModel } }).pipe(fate);
      // q and s in the interrupt's frame (the cut iteration absorbs it); the next response at 9.
      expectObservable(out).toBe('-----(qs)(cX|)');
      expectSubscriptions(m1.subscriptions).toBe('^----!');
      flush();
      expect(requests[1]!.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'stop, do this instead' }] });
    });
  });

  it('queued input at the end of a turn starts one more; input after the terminal is not read', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const r1 = replyMarble({ ...message([text('quick answer')]), endDelayMs: 3 });
      // The same reply for both turns.
      const reply = cold<TransportOutput>(r1.marbles, r1.values);
      const { callModel } = coldModel(reply, reply);
      // a is queued while the first answer streams; b comes after the terminal (frame 14).
      const typed = inputMarble('-a-----------------b', { a: { id: 'c1', input: 'x' }, b: { id: 'c2', input: 'y' } });
      const input = hot<Submission>(typed.marbles, typed.values);
      const out = agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', input$: input, deps: { callModel } }).pipe(fate);
      //                         ------(m|)       turn 1 ends at 7 and takes c1
      //                                ------(m|) turn 2
      expectObservable(out).toBe('-q-----s------(cX|)');
      expectSubscriptions(input.subscriptions).toBe('^-------------!');
    });
  });
});
