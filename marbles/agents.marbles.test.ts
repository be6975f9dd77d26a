/**
 * Notification timing of background subagents in virtual time: fake models are `cold()` streams
 * chosen by system prompt (parent vs each child), tools are timers. Letters (only these kept):
 * i parent iteration_start, r parent tool_result, c a child's terminal (as the parent's
 * tool_progress), n a user message carrying a notification, T the tree's terminal.
 */
import { describe, expect, it } from 'vitest';
import { filter, map, take, tap, timer, type Observable } from 'rxjs';
import { agentLoopWithSubagents, type AgentTreeOptions } from '../src/agents/agentTree.js';
import { defineAgent } from '../src/agents/definitions.js';
import { subagentEventOf } from '../src/agents/events.js';
import type { CallModel } from '../src/loop/options.js';
import type { LoopEvent } from '../src/loop/types.js';
import type { MessagesRequest } from '../src/protocol/request.js';
import type { TransportOutput } from '../src/transport/types.js';
import { eventsOf, message, systemText, text, toolUse } from '../test/loop/helpers.js';
import { letters as lettersOf, replyMarble, waitTool } from '../src/testing/index.js';
import { createTestScheduler } from './helpers/testScheduler.js';
import { fakeTreeModel as fakeModel } from './helpers/fakeTreeModel.js';

const fast = defineAgent({ name: 'fast', description: 'quick', prompt: 'FAST' });
const slow = defineAgent({ name: 'slow', description: 'slow', prompt: 'SLOW' });
const bg = (id: string, type: string) =>
  toolUse('Agent', { description: `${type} job`, prompt: `do ${type}`, subagent_type: type, run_in_background: true }, id);

const userText = (e: LoopEvent): string =>
  e.type === 'user_message' && Array.isArray(e.message.content)
    ? e.message.content.map((b) => (b.type === 'text' ? b.text : '')).join('')
    : '';

function letterOf(e: LoopEvent): string | undefined {
  const sub = subagentEventOf(e);
  if (sub) return sub.event.type === 'terminal' ? 'c' : undefined;
  if (e.type === 'iteration_start') return 'i';
  if (e.type === 'tool_result') return 'r';
  if (e.type === 'user_message' && userText(e).includes('Background subagent')) return 'n';
  if (e.type === 'terminal') return 'T';
  return undefined;
}
const letters = (events$: Observable<LoopEvent>) => events$.pipe(lettersOf(letterOf));
const L = { i: 'i', r: 'r', c: 'c', n: 'n', T: 'T' };


const tree = (callModel: CallModel, extra: Partial<AgentTreeOptions> = {}) =>
  agentLoopWithSubagents({
    model: 'claude-sonnet-4-5',
    system: 'PARENT',
    prompt: 'go',
    agents: { definitions: [fast, slow] },
    ...extra,
    deps: { callModel },
  });

describe('background subagent notifications (virtual time)', () => {
  it('a notification that arrives during a tool round is absorbed at the next iteration boundary, with the results', () => {
    const requests: MessagesRequest[] = [];
    createTestScheduler().run(({ cold, expectObservable }) => {
      const model = fakeModel(
        cold,
        (n) => (n === 0 ? message([bg('t1', 'fast'), toolUse('wait', {}, 't2')]) : message([text('done')])),
        { FAST: 4 },
      );
      const callModel: CallModel = (request, options) => {
        requests.push(request);
        return model.callModel(request, options);
      };
      // Launched result at 0, child ends at 4, the wait tool at 10: the notification rides with it.
      expectObservable(letters(tree(callModel, { tools: [waitTool(10)] }))).toBe('(ir)c 5ms (rniT|)', L);
    });
    expect(requests.map(systemText)).toEqual(['PARENT', 'FAST', 'PARENT']);
  });

  it('the parent that ends its turn while a child runs waits, then continues with the notification', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const { callModel } = fakeModel(
        cold,
        (n) => (n === 0 ? message([bg('t1', 'slow')]) : message([text(`reply ${n}`)])),
        { SLOW: 20 },
      );
      expectObservable(letters(tree(callModel))).toBe('(iri) 15ms (cniT|)', L);
    });
  });

  it('two children: notifications in completion order, each starting the next parent iteration when it arrives', () => {
    const seen: string[] = [];
    createTestScheduler().run(({ cold, expectObservable }) => {
      const { callModel } = fakeModel(
        cold,
        (n) => (n === 0 ? message([bg('t1', 'slow'), bg('t2', 'fast')]) : message([text(`reply ${n}`)])),
        { SLOW: 30, FAST: 10 },
      );
      const tree$ = tree(callModel).pipe(tap((e) => letterOf(e) === 'n' && seen.push(userText(e))));
      expectObservable(letters(tree$)).toBe('(irri) 4ms (cni) 15ms (cniT|)', L);
    });
    expect(seen.map((t) => /\((\w+): /.exec(t)?.[1])).toEqual(['fast', 'slow']);
  });

  it('with waitForBackground false the tree ends at once and the child is cut (no late events)', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const child = cold<TransportOutput>('20ms (a|)', { a: eventsOf(message([text('late')]))[0]! });
      let parentCalls = 0;
      const callModel: CallModel = (request) => {
        if (systemText(request) !== 'PARENT') return child;
        const msg = parentCalls++ === 0 ? message([bg('t1', 'slow')]) : message([text('bye')]);
        const { marbles: marble, values } = replyMarble(msg, { frame: 0 });
        return cold<TransportOutput>(marble, values);
      };
      expectObservable(letters(tree(callModel, { agents: { definitions: [slow], waitForBackground: false } }))).toBe('(iriT|)', L);
      expectSubscriptions(child.subscriptions).toBe('(^!)');
    });
  });
  it('aborting while the parent waits ends the tree with aborted_tools and cuts the child in the same frame', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const child = cold<TransportOutput>('50ms (a|)', { a: eventsOf(message([text('late')]))[0]! });
      let parentCalls = 0;
      const callModel: CallModel = (request) => {
        if (systemText(request) !== 'PARENT') return child;
        const msg = parentCalls++ === 0 ? message([bg('t1', 'slow')]) : message([text('waiting')]);
        const { marbles: marble, values } = replyMarble(msg, { frame: 0 });
        return cold<TransportOutput>(marble, values);
      };
      const controller = new AbortController();
      timer(7).subscribe(() => controller.abort());
      const tree$ = tree(callModel, { agents: { definitions: [slow] }, signal: controller.signal });
      expectObservable(tree$.pipe(filter((e) => e.type === 'terminal'), map((e) => (e.type === 'terminal' ? e.reason : '')))).toBe('7ms (a|)', { a: 'aborted_tools' });
      expectSubscriptions(child.subscriptions).toBe('^ 6ms !');
    });
  });

  it('is cold: each subscription runs its own tree; unsubscribing cuts background children', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const child = cold<TransportOutput>('50ms (a|)', { a: eventsOf(message([text('late')]))[0]! });
      const parentStreams: string[] = [];
      const callModel: CallModel = (request) => {
        if (systemText(request) !== 'PARENT') return child;
        // Each subscription's first parent call launches; later ones answer.
        const launches = !request.messages.some((m) => Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_result'));
        parentStreams.push(launches ? 'launch' : 'answer');
        const msg = launches ? message([bg('t1', 'slow')]) : message([text('waiting')]);
        const { marbles: marble, values } = replyMarble(msg, { frame: 0 });
        return cold<TransportOutput>(marble, values);
      };
      const tree$ = tree(callModel, { agents: { definitions: [slow] } });
      expectObservable(letters(tree$), '^ 9ms !').toBe('(iri)', L);
      expectObservable(letters(tree$), '^ 19ms !').toBe('(iri)', L);
      expectSubscriptions(child.subscriptions).toBe(['^ 9ms !', '^ 19ms !']);
    });
  });
  it('take(n) unsubscribes synchronously: the model call is cut in the frame of its first event', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const first = replyMarble(message([bg('t1', 'slow')]), { frame: 0, start: 5 });
      const model = cold<TransportOutput>(first.marbles, first.values);
      const tree$ = tree(() => model, { agents: { definitions: [slow] } });
      // Events: the prompt's user_message, iteration_start, then the first model event at frame 5.
      expectObservable(letters(tree$.pipe(take(3)))).toBe('i 4ms |', L);
      expectSubscriptions(model.subscriptions).toBe('^ 4ms !');
    });
  });
});
