/**
 * The agent tree's input drawn as a hot stream (`agentLoopWithSubagents({ input$ })`), its fate
 * read off the output with `expectObservable`. The same scenarios as the run handle's
 * (agentTreeRun.marbles.test.ts), without a handle: an Rx app feeding the tree a stream.
 *
 * Letters: q queued, s started, c completed, x cancelled, d discarded (a submission's
 * lifecycle), n a user message carrying a notification, T the tree's terminal.
 */
import { describe, expect, it } from 'vitest';
import type { Observable } from 'rxjs';
import { agentLoopWithSubagents } from '../src/agents/agentTree.js';
import type { CallModel } from '../src/loop/options.js';
import type { Submission } from '../src/loop/runInput.js';
import type { LoopEvent } from '../src/loop/types.js';
import type { MessagesRequest } from '../src/protocol/request.js';
import { inputMarble, letters, replyMarble } from '../src/testing/index.js';
import type { TransportOutput } from '../src/transport/types.js';
import { message, systemText, text } from '../test/loop/helpers.js';
import { fakeTreeModel, streamsOf } from './helpers/fakeTreeModel.js';
import { createTestScheduler } from './helpers/testScheduler.js';
import { bg, fg, slow, treeLetterOf } from './helpers/treeLetters.js';

const LETTER: Record<string, string> = { queued: 'q', started: 's', completed: 'c', cancelled: 'x', discarded: 'd' };
const fate = letters((e: LoopEvent) => {
  if (e.type === 'command_lifecycle') return LETTER[e.status];
  const letter = treeLetterOf(e);
  return letter === 'n' || letter === 'T' ? letter : undefined;
});

const tree = (callModel: CallModel, input$: Observable<Submission>) =>
  agentLoopWithSubagents({ model: 'claude-sonnet-4-5', system: 'PARENT', prompt: 'go', agents: { definitions: [slow] }, input$, deps: { callModel } });

const lastUserTexts = (request: MessagesRequest | undefined): string[] => {
  const last = request?.messages.at(-1);
  return Array.isArray(last?.content) ? last.content.map((b) => (b.type === 'text' ? b.text : b.type)) : [];
};
const parentRequests = (requests: readonly MessagesRequest[]) => requests.filter((r) => systemText(r) === 'PARENT');

describe('agent tree input$ (hot)', () => {
  it('input while a foreground child runs is queued in the root and absorbed with the Agent result (no inputAcks needed)', () => {
    let requests: MessagesRequest[] = [];
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const model = fakeTreeModel(cold, (n) => (n === 0 ? message([fg('t1', 'slow')]) : message([text('done')])), { SLOW: 10 });
      requests = model.requests;
      const typed = inputMarble('----a', { a: { id: 'c1', input: 'also check the tests' } });
      const input$ = hot<Submission>(typed.marbles, typed.values);
      // 4: queued in the root's loop (the child runs); 10: the child ends, c1 is absorbed with
      // the batch, the second request answers at once and c1 completes with the turn.
      expectObservable(tree(model.callModel, input$).pipe(fate)).toBe('----q-----(scT|)');
      expectSubscriptions(input$.subscriptions).toBe('^---------!');
    });
    expect(lastUserTexts(parentRequests(requests)[1])).toEqual(['tool_result', 'also check the tests']);
  });

  it('input while the tree waits for a background child starts the next phase at once', () => {
    let requests: MessagesRequest[] = [];
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions, flush }) => {
      const model = fakeTreeModel(cold, (n) => (n === 0 ? message([bg('t1', 'slow')]) : message([text(`reply ${n}`)])), { SLOW: 30 });
      requests = model.requests;
      const typed = inputMarble('-----a', { a: { id: 'c1', input: 'while you wait: hello' } });
      const input$ = hot<Submission>(typed.marbles, typed.values);
      // 0: launch, the turn ends, the tree waits. 5: c1 is queued by the tree and starts phase 2
      // as its prompt, which completes it. 30: the child's notification starts phase 3.
      expectObservable(tree(model.callModel, input$).pipe(fate)).toBe('-----(qsc) 20ms (nT|)');
      expectSubscriptions(input$.subscriptions).toBe('^ 29ms !');
      flush();
      // The parent's requests: launch and answer at 0, phase 2 at 5, phase 3 at 30.
      const parents = streamsOf(model.streams, 'PARENT');
      expect(parents).toHaveLength(4);
      ['(^!)', '(^!)', '5ms (^!)', '30ms (^!)'].forEach((drawn, i) => expectSubscriptions(parents[i]!.subscriptions).toBe(drawn));
    });
    expect(lastUserTexts(parentRequests(requests)[2])).toEqual(['while you wait: hello']);
  });

  it("an interrupt cuts a foreground child (the Agent tool is 'cancel') and the root goes on with the input", () => {
    let requests: MessagesRequest[] = [];
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions, flush }) => {
      const model = fakeTreeModel(cold, (n) => (n === 0 ? message([fg('t1', 'slow')]) : message([text('switched')])), { SLOW: 20 });
      requests = model.requests;
      const typed = inputMarble('------a', { a: { id: 'c1', input: 'stop, do this instead', interrupt: true } });
      const input$ = hot<Submission>(typed.marbles, typed.values);
      expectObservable(tree(model.callModel, input$).pipe(fate)).toBe('------(qscT|)');
      flush();
      expectSubscriptions(streamsOf(model.streams, 'SLOW')[0]!.subscriptions).toBe('^ 5ms !');
    });
    expect(parentRequests(requests)[1]!.messages.at(-1)).toMatchObject({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't1', is_error: true }, { type: 'text', text: 'stop, do this instead' }],
    });
  });

  it('a failed run: input absorbed with the Agent result is cancelled, input still queued is discarded', () => {
    createTestScheduler().run(({ cold, hot, expectObservable }) => {
      let parentCalls = 0;
      const callModel: CallModel = (request) => {
        if (systemText(request) !== 'PARENT') {
          const { marbles, values } = replyMarble(message([text('child answer')]), { frame: 0, start: 4 });
          return cold<TransportOutput>(marbles, values);
        }
        if (parentCalls++ === 0) {
          const { marbles, values } = replyMarble(message([fg('t1', 'slow')]), { frame: 0 });
          return cold<TransportOutput>(marbles, values);
        }
        // The second request starts at 4 (the child's end) and fails at 7.
        return cold<TransportOutput>('3ms #', {}, new Error('socket closed'));
      };
      const typed = inputMarble('--a--b', { a: { id: 'c1', input: 'first' }, b: { id: 'c2', input: 'second' } });
      const input$ = hot<Submission>(typed.marbles, typed.values);
      expectObservable(tree(callModel, input$).pipe(fate)).toBe('--q-sq-(xdT|)');
    });
  });

  it('input after the terminal is not read: the tree stops reading at its end', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      const model = fakeTreeModel(cold, (n) => (n === 0 ? message([fg('t1', 'slow')]) : message([text('done')])), { SLOW: 3 });
      const typed = inputMarble('------a', { a: 'too late' });
      const input$ = hot<Submission>(typed.marbles, typed.values);
      expectObservable(tree(model.callModel, input$).pipe(fate)).toBe('---(T|)');
      expectSubscriptions(input$.subscriptions).toBe('^--!');
    });
  });
});
