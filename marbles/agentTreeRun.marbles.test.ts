/**
 * `createAgentTreeRun` in virtual time: submissions into the root loop of an agent tree. Fake
 * models are `cold()` streams chosen by system prompt (PARENT vs each child's), as in
 * agents.marbles.test.ts; the child answers `childDelay` frames after its request.
 */
import { describe, expect, it } from 'vitest';
import { timer } from 'rxjs';
import { createAgentTreeRun } from '../src/agents/createAgentTreeRun.js';
import { defineAgent } from '../src/agents/definitions.js';
import { subagentEventOf } from '../src/agents/events.js';
import type { CallModel } from '../src/loop/options.js';
import type { LoopEvent } from '../src/loop/types.js';
import type { MessagesRequest } from '../src/protocol/request.js';
import { validateMessagesRequest } from '../src/testing/validateRequest.js';
import type { TransportOutput } from '../src/transport/types.js';
import { message, systemText, text, toolUse } from '../test/loop/helpers.js';
import type { RunHelpers } from 'rxjs/testing';
import { replyMarble, submitAt } from '../src/testing/index.js';
import { createTestScheduler } from './helpers/testScheduler.js';

const slow = defineAgent({ name: 'slow', description: 'slow', prompt: 'SLOW' });
const agentCall = (id: string, background: boolean) =>
  toolUse('Agent', { description: 'slow job', prompt: 'do slow', subagent_type: 'slow', ...(background ? { run_in_background: true } : {}) }, id);

/** `parent(n)` plays the parent's n-th response at once; the child answers after `childDelay` frames. */
function fakeModel(cold: RunHelpers['cold'], parent: (n: number) => ReturnType<typeof message>, childDelay: number) {
  const requests: MessagesRequest[] = [];
  const childStreams: ReturnType<RunHelpers['cold']>[] = [];
  let parentCalls = 0;
  const callModel: CallModel = (request) => {
    requests.push(request);
    if (systemText(request) !== 'PARENT') {
      const { marbles: marble, values } = replyMarble(message([text('child answer')]), { frame: 0, start: childDelay });
      const stream = cold<TransportOutput>(marble, values);
      childStreams.push(stream);
      return stream;
    }
    const { marbles: marble, values } = replyMarble(parent(parentCalls++), { frame: 0 });
    return cold<TransportOutput>(marble, values);
  };
  return { callModel, requests, childStreams };
}

const treeRun = (callModel: CallModel) =>
  createAgentTreeRun({ model: 'claude-sonnet-4-5', system: 'PARENT', prompt: 'go', agents: { definitions: [slow] }, deps: { callModel } });

const lifecycle = (events: readonly LoopEvent[]) =>
  events.flatMap((e) => (e.type === 'command_lifecycle' ? [`${e.id}:${e.status}${e.seenByModel === undefined ? '' : e.seenByModel ? '+' : '-'}`] : []));
const parentRequests = (requests: readonly MessagesRequest[]) => requests.filter((r) => systemText(r) === 'PARENT');
const lastUserTexts = (request: MessagesRequest | undefined) => {
  const last = request?.messages.at(-1);
  return Array.isArray(last?.content) ? last.content.map((b) => (b.type === 'text' ? b.text : b.type)) : [];
};

describe('createAgentTreeRun submissions', () => {
  it('input submitted while a foreground child runs is queued in the root and absorbed with the Agent result', () => {
    const events: LoopEvent[] = [];
    let requests: MessagesRequest[] = [];
    createTestScheduler().run(({ cold, flush }) => {
      const model = fakeModel(cold, (n) => (n === 0 ? message([agentCall('t1', false)]) : message([text('done')])), 10);
      requests = model.requests;
      const run = treeRun(model.callModel);
      run.events$.subscribe((e) => events.push(e));
      timer(4).subscribe(() => expect(run.submit('also check the tests', { id: 'c1' })).toEqual({ id: 'c1', accepted: true }));
      flush();
    });
    expect(requests.map(systemText)).toEqual(['PARENT', 'SLOW', 'PARENT']);
    expect(lastUserTexts(parentRequests(requests)[1])).toEqual(['tool_result', 'also check the tests']);
    // queued at 4 (the child still running), started with the batch's results, completed with the turn.
    expect(lifecycle(events)).toEqual(['c1:queued', 'c1:started', 'c1:completed+']);
    const queuedAt = events.findIndex((e) => e.type === 'command_lifecycle' && e.status === 'queued');
    const agentResultAt = events.findIndex((e) => e.type === 'tool_result' && e.name === 'Agent');
    expect(queuedAt).toBeLessThan(agentResultAt);
    expect(events.filter((e) => e.type === 'terminal')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'terminal', reason: 'completed', turnCount: 2 });
    for (const r of requests) expect(validateMessagesRequest(r)).toEqual([]);
  });

  it('input submitted while the tree waits for a background child starts the next root phase at once', () => {
    const events: LoopEvent[] = [];
    let requests: MessagesRequest[] = [];
    createTestScheduler().run(({ cold, flush }) => {
      const model = fakeModel(cold, (n) => (n === 0 ? message([agentCall('t1', true)]) : message([text(`reply ${n}`)])), 30);
      requests = model.requests;
      const run = treeRun(model.callModel);
      run.events$.subscribe((e) => events.push(e));
      submitAt(run, 5, 'while you wait: hello', { id: 'c1' });
      flush();
    });
    // launch, answer (turn ends, tree waits), the submission's phase, then the notification's phase.
    const parents = parentRequests(requests);
    expect(parents).toHaveLength(4);
    expect(lastUserTexts(parents[2])).toEqual(['while you wait: hello']);
    expect(lastUserTexts(parents[3])[0]).toContain('Background subagent');
    expect(lifecycle(events)).toEqual(['c1:queued', 'c1:started', 'c1:completed+']);
    // The submission's user_message follows its `started`, and the child is still running then.
    const startedAt = events.findIndex((e) => e.type === 'command_lifecycle' && e.status === 'started');
    const childEnd = events.findIndex((e) => subagentEventOf(e)?.event.type === 'terminal');
    expect(events[startedAt + 1]).toMatchObject({ type: 'user_message' });
    expect(startedAt).toBeLessThan(childEnd);
    expect(events.filter((e) => e.type === 'terminal')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'terminal', reason: 'completed', turnCount: 4, lastAssistantText: 'reply 3' });
    for (const r of requests) expect(validateMessagesRequest(r)).toEqual([]);
  });

  it("an interrupt cancels a foreground child (the Agent tool is 'cancel') and the root goes on with the input", () => {
    const events: LoopEvent[] = [];
    let requests: MessagesRequest[] = [];
    createTestScheduler().run(({ cold, flush, expectSubscriptions }) => {
      const model = fakeModel(cold, (n) => (n === 0 ? message([agentCall('t1', false)]) : message([text('switched')])), 20);
      requests = model.requests;
      const run = treeRun(model.callModel);
      run.events$.subscribe((e) => events.push(e));
      submitAt(run, 6, 'stop, do this instead', { id: 'c1', interrupt: true });
      flush();
      expectSubscriptions(model.childStreams[0]!.subscriptions).toBe('^ 5ms !');
    });
    const parents = parentRequests(requests);
    expect(parents).toHaveLength(2);
    // The cut Agent call gets an "interrupted" error result; the input rides with it.
    expect(parents[1]!.messages.at(-1)).toMatchObject({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't1', is_error: true }, { type: 'text', text: 'stop, do this instead' }],
    });
    expect(lifecycle(events)).toEqual(['c1:queued', 'c1:started', 'c1:completed+']);
    expect(events.at(-1)).toMatchObject({ type: 'terminal', reason: 'completed' });
  });

  it('input submitted before subscribe is queued at start; after the terminal nothing is accepted', () => {
    const events: LoopEvent[] = [];
    let requests: MessagesRequest[] = [];
    let late: unknown;
    createTestScheduler().run(({ cold, flush }) => {
      const model = fakeModel(cold, (n) => (n === 0 ? message([agentCall('t1', false)]) : message([text('done')])), 3);
      requests = model.requests;
      const run = treeRun(model.callModel);
      expect(run.submit('early', { id: 'c0' }).accepted).toBe(true);
      run.events$.subscribe((e) => {
        events.push(e);
        if (e.type === 'terminal') late = run.submit('at the terminal');
      });
      flush();
      expect(run.submit('after the end', { id: 'c9' })).toEqual({ id: 'c9', accepted: false });
    });
    expect(late).toMatchObject({ accepted: false });
    expect(lastUserTexts(parentRequests(requests)[1])).toEqual(['tool_result', 'early']);
    expect(lifecycle(events)).toEqual(['c0:queued', 'c0:started', 'c0:completed+']);
  });

  it('a failed run: input absorbed with the Agent result is cancelled, input still queued is discarded', () => {
    const events: LoopEvent[] = [];
    createTestScheduler().run(({ cold, flush }) => {
      // A model error on the second parent request: c1 was absorbed with the Agent result.
      let parentCalls = 0;
      const callModel: CallModel = (request) => {
        if (systemText(request) !== 'PARENT') {
          const { marbles: marble, values } = replyMarble(message([text('child answer')]), { frame: 0, start: 4 });
          return cold<TransportOutput>(marble, values);
        }
        if (parentCalls++ === 0) {
          const { marbles: marble, values } = replyMarble(message([agentCall('t1', false)]), { frame: 0 });
          return cold<TransportOutput>(marble, values);
        }
        return cold<TransportOutput>('3ms #', {}, new Error('socket closed'));
      };
      const run = createAgentTreeRun({ model: 'claude-sonnet-4-5', system: 'PARENT', prompt: 'go', agents: { definitions: [slow] }, deps: { callModel } });
      run.events$.subscribe({ next: (e) => events.push(e), error: () => undefined });
      submitAt(run, 2, 'first', { id: 'c1' });
      // The second parent request starts at 4 and fails at 7: c2 is still in the queue then.
      submitAt(run, 5, 'second', { id: 'c2' });
      flush();
    });
    expect(events.filter((e) => e.type === 'terminal')).toHaveLength(1);
    expect(events.at(-1)).toMatchObject({ type: 'terminal' });
    expect(lifecycle(events)).toEqual(['c1:queued', 'c1:started', 'c2:queued', 'c1:cancelled+', 'c2:discarded']);
  });

  it('is cold: each subscription runs its own tree with its own queue', () => {
    const runs: LoopEvent[][] = [[], []];
    createTestScheduler().run(({ cold, flush }) => {
      const model = fakeModel(cold, (n) => (n % 2 === 0 ? message([agentCall(`t${n}`, false)]) : message([text('done')])), 10);
      const run = treeRun(model.callModel);
      run.events$.subscribe((e) => runs[0]!.push(e));
      submitAt(run, 4, 'to the first', { id: 'c1' });
      flush();
      run.events$.subscribe((e) => runs[1]!.push(e));
      flush();
    });
    expect(lifecycle(runs[0]!)).toEqual(['c1:queued', 'c1:started', 'c1:completed+']);
    expect(runs[1]!.at(-1)).toMatchObject({ type: 'terminal', reason: 'completed' });
    expect(lifecycle(runs[1]!)).toEqual([]);
  });
});
