/** `agentLoop({ input$ })`: user input drawn as a hot stream, its fate read off the output. */
import { describe, expect, it } from 'vitest';
import { filter, map, timer } from 'rxjs';
import { z } from 'zod';
import { agentLoop } from '../src/loop/agentLoop.js';
import type { Submission } from '../src/loop/runInput.js';
import type { LoopEvent } from '../src/loop/types.js';
import { defineTool } from '../src/tools/defineTool.js';
import type { TransportOutput } from '../src/transport/types.js';
import { validateMessagesRequest } from '../src/testing/validateRequest.js';
import { eventsOf, message, text, toolUse } from '../test/loop/helpers.js';
import { burstMarble, coldModel, responseMarble } from './helpers/fakeModel.js';
import { createTestScheduler } from './helpers/testScheduler.js';

const waitTool = defineTool({
  name: 'wait',
  description: 'waits',
  inputSchema: z.strictObject({}),
  isConcurrencySafe: true,
  call: () => timer(10).pipe(map(() => ({ type: 'outcome' as const, output: 'waited' }))),
});

/** The lifecycle events and the terminal, as letters: q queued, s started, c completed, d discarded, X terminal. */
const LETTER: Record<string, string> = { queued: 'q', started: 's', completed: 'c', cancelled: 'x', discarded: 'd' };
const fate = (e: LoopEvent) => (e.type === 'terminal' ? 'X' : e.type === 'command_lifecycle' ? LETTER[e.status]! : '');

describe('agentLoop input$', () => {
  it('a submission during a tool is absorbed next to its result and completes with the run', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions, flush }) => {
      const r1 = burstMarble(eventsOf(message([toolUse('wait', {})])), 1);
      const r2 = burstMarble(eventsOf(message([text('done')])), 1);
      const { callModel, requests } = coldModel([cold<TransportOutput>(r1.marble, r1.values), cold<TransportOutput>(r2.marble, r2.values)]);
      const input = hot<Submission>('----a', { a: { id: 'c1', input: 'also check the tests' } });
      //             -(m|)           first response: the tool call, wait runs 10 frames
      //                        -(m|)  the batch at 11 carries c1; second response
      const out = agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', tools: [waitTool], input$: input, deps: { callModel } }).pipe(
        map(fate),
        filter((letter) => letter !== ''),
      );
      expectObservable(out).toBe('----q------s(cX|)');
      expectSubscriptions(input.subscriptions).toBe('^-----------!');
      flush();
      expect(requests[1]!.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'tool_result' }, { type: 'text', text: 'also check the tests' }] });
      for (const r of requests) expect(validateMessagesRequest(r)).toEqual([]);
    });
  });

  it('an interrupt while the model streams cuts the iteration; the run goes on with the input', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions, flush }) => {
      const slow = responseMarble(eventsOf(message([text('a long answer')])), 20);
      const r2 = burstMarble(eventsOf(message([text('ok, switching')])), 4);
      const m1 = cold<TransportOutput>(slow.marble, slow.values);
      const { callModel, requests } = coldModel([m1, cold<TransportOutput>(r2.marble, r2.values)]);
      const input = hot<Submission>('-----i', { i: { id: 'c1', input: 'stop, do this instead', interrupt: true } });
      const out = agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', input$: input, deps: { callModel } }).pipe(map(fate), filter((l) => l !== ''));
      // q and s in the interrupt's frame (the cut iteration absorbs it); the next response at 9.
      expectObservable(out).toBe('-----(qs)(cX|)');
      expectSubscriptions(m1.subscriptions).toBe('^----!');
      flush();
      expect(requests[1]!.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'text', text: 'stop, do this instead' }] });
    });
  });

  it('queued input at the end of a turn starts one more; input after the terminal is not read', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const r1 = responseMarble(eventsOf(message([text('quick answer')])), 3);
      const { callModel } = coldModel([cold<TransportOutput>(r1.marble, r1.values)]);
      // a is queued while the first answer streams; b comes after the terminal (frame 14).
      const input = hot<Submission>('-a-----------------b', { a: { id: 'c1', input: 'x' }, b: { id: 'c2', input: 'y' } });
      const out = agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', input$: input, deps: { callModel } }).pipe(map(fate), filter((l) => l !== ''));
      //                         ------(m|)       turn 1 ends at 7 and takes c1
      //                                ------(m|) turn 2
      expectObservable(out).toBe('-q-----s------(cX|)');
      expectSubscriptions(input.subscriptions).toBe('^-------------!');
    });
  });
});
