/**
 * The agent tree's timing, drawn: when a child's end reaches the parent, when the parent's
 * next request starts, what the caps do with a burst of calls, and that an abort of the parent
 * reaches every child in its frame. Fake models are `cold()` streams chosen by system prompt
 * (fakeTreeModel); `expectSubscriptions` on each model stream says when each request ran.
 *
 * Letters (only these kept): i parent iteration_start, r a parent tool_result that is not an
 * error, x one that is, c a child's terminal (the parent's tool_progress), n a user message
 * carrying a notification, T the tree's terminal.
 */
import { describe, expect, it } from 'vitest';
import { filter, map, timer } from 'rxjs';
import { agentLoopWithSubagents, type AgentTreeOptions } from '../src/agents/agentTree.js';
import { defineAgent } from '../src/agents/definitions.js';
import type { CallModel } from '../src/loop/options.js';
import type { LoopEvent } from '../src/loop/types.js';
import type { MessagesRequest } from '../src/protocol/request.js';
import { marbleFromTimeline, replyMarble, waitTool } from '../src/testing/index.js';
import type { TransportOutput } from '../src/transport/types.js';
import { message, systemText, text, toolUse } from '../test/loop/helpers.js';
import { fakeTreeModel, streamsOf, type FakeStream } from './helpers/fakeTreeModel.js';
import { createTestScheduler } from './helpers/testScheduler.js';
import { bg, fast, fg, L, slow, treeLetters } from './helpers/treeLetters.js';

const letters = treeLetters;

const tree = (callModel: CallModel, extra: Partial<AgentTreeOptions> = {}) =>
  agentLoopWithSubagents({ model: 'claude-sonnet-4-5', system: 'PARENT', prompt: 'go', agents: { definitions: [fast, slow] }, ...extra, deps: { callModel } });

const texts = (request: MessagesRequest | undefined): string =>
  JSON.stringify(request?.messages.at(-1)?.content ?? '');
const errorTexts = (events: readonly LoopEvent[]): string[] =>
  events.flatMap((e) => (e.type === 'tool_result' && e.result.is_error ? [JSON.stringify(e.result.content)] : []));

describe('agent tree timing (virtual time)', () => {
  it("a foreground child finishes before the parent's next request, which starts in the child's last frame", () => {
    let requests: MessagesRequest[] = [];
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions, flush }) => {
      const model = fakeTreeModel(cold, (n) => (n === 0 ? message([fg('t1', 'slow')]) : message([text('done')])), { SLOW: 10 });
      requests = model.requests;
      // 0: the call starts the child; 10: its terminal, then the Agent result, then iteration 2.
      expectObservable(letters(tree(model.callModel))).toBe('i 9ms (criT|)', L);
      flush();
      const [first, second] = streamsOf(model.streams, 'PARENT');
      const [child] = streamsOf(model.streams, 'SLOW');
      expectSubscriptions(first!.subscriptions).toBe('(^!)');
      expectSubscriptions(child!.subscriptions).toBe('^ 9ms !');
      expectSubscriptions(second!.subscriptions).toBe('10ms (^!)');
    });
    expect(requests.map(systemText)).toEqual(['PARENT', 'SLOW', 'PARENT']);
    // The second request carries the child's answer as the Agent call's result.
    expect(texts(requests[2])).toContain('SLOW answer');
  });

  it("a background child's result is a later input: absorbed by the parent's next request after the child's end", () => {
    let requests: MessagesRequest[] = [];
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions, flush }) => {
      const model = fakeTreeModel(
        cold,
        (n) => (n === 0 ? message([bg('t1', 'fast'), toolUse('wait', {}, 't2')]) : message([text(`reply ${n}`)])),
        { FAST: 4 },
      );
      requests = model.requests;
      // 0: "launched" at once; 4: the child ends while the parent's wait tool runs (to 12);
      // 12: the wait result and the notification go into the same next request.
      expectObservable(letters(tree(model.callModel, { tools: [waitTool(12)] }))).toBe('(ir) c 7ms (rniT|)', L);
      flush();
      const [first, second, third] = streamsOf(model.streams, 'PARENT');
      expectSubscriptions(first!.subscriptions).toBe('(^!)');
      // Not at 4, when the child ended: the notification waits for the tool batch.
      expectSubscriptions(second!.subscriptions).toBe('12ms (^!)');
      expect(third).toBeUndefined();
    });
    const last = requests.at(-1)!;
    expect(systemText(last)).toBe('PARENT');
    expect(texts(last)).toContain('FAST answer');
    expect(texts(last)).toContain('waited 12');
  });

  it('the default caps: 10 subagents at once over the whole tree; the 11th call of a burst is refused at once', () => {
    const seen: LoopEvent[] = [];
    let requests: MessagesRequest[] = [];
    createTestScheduler().run(({ cold, expectObservable }) => {
      const burst = Array.from({ length: 11 }, (_, i) => bg(`t${i + 1}`, 'fast'));
      const model = fakeTreeModel(cold, (n) => (n === 0 ? message(burst) : message([text(`reply ${n}`)])), { FAST: 20 });
      requests = model.requests;
      const tree$ = tree(model.callModel).pipe(map((e) => (e.type === 'tool_result' && seen.push(e), e)));
      // 0: ten launched, the eleventh refused, the turn ends and the tree waits. 20: the ten end
      // in one frame; the first notification starts phase 2 at once, the nine after it arrive
      // while phase 2 runs and start phase 3 together.
      const expected = marbleFromTimeline(
        [
          { frame: 0, letter: 'i' + 'r'.repeat(10) + 'xi' },
          { frame: 20, letter: 'cni' + 'c'.repeat(9) + 'niT' },
        ],
        { kind: 'complete', frame: 20 },
      );
      expectObservable(letters(tree$)).toBe(expected, L);
    });
    expect(errorTexts(seen)).toHaveLength(1);
    expect(errorTexts(seen)[0]).toContain('10 subagents are already running');
    expect(requests.filter((r) => systemText(r) === 'FAST')).toHaveLength(10);
  });

  it('the default caps: 50 subagents per run; the 51st is refused even with every slot free', () => {
    const seen: LoopEvent[] = [];
    createTestScheduler().run(({ cold, expectObservable }) => {
      // Five responses of ten foreground calls (each batch within the 10 at once), then one more.
      const batch = (n: number) => Array.from({ length: 10 }, (_, i) => fg(`t${n}-${i}`, 'fast'));
      const model = fakeTreeModel(cold, (n) => (n < 5 ? message(batch(n)) : n === 5 ? message([fg('t51', 'fast')]) : message([text('done')])), { FAST: 30 });
      const tree$ = tree(model.callModel).pipe(map((e) => (e.type === 'tool_result' && seen.push(e), e)));
      // Every 30 frames a batch ends (each child's terminal, then its call's result) and the next
      // request starts; the sixth response's call is refused at once, at 150.
      const round = 'cr'.repeat(10) + 'i';
      const expected = marbleFromTimeline(
        [
          { frame: 0, letter: 'i' },
          ...[30, 60, 90, 120].map((frame) => ({ frame, letter: round })),
          { frame: 150, letter: round + 'xiT' },
        ],
        { kind: 'complete', frame: 150 },
      );
      expectObservable(letters(tree$)).toBe(expected, L);
    });
    expect(seen).toHaveLength(51);
    expect(errorTexts(seen)).toHaveLength(1);
    expect(errorTexts(seen)[0]).toContain('already started 50 subagents');
  });

  it('aborting the parent aborts every child in the same frame: foreground, background and a grandchild', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions, flush }) => {
      const nester = defineAgent({ name: 'nester', description: 'starts its own child', prompt: 'NESTER' });
      const streams: FakeStream[] = [];
      const play = (system: string, msg: ReturnType<typeof message>, start = 0) => {
        const { marbles, values } = replyMarble(msg, { frame: 0, start });
        const stream = cold<TransportOutput>(marbles, values);
        streams.push({ system, stream });
        return stream;
      };
      const callModel: CallModel = (request) => {
        const system = systemText(request);
        if (system === 'PARENT') return play(system, message([fg('t1', 'nester'), bg('t2', 'slow')]));
        // The nester's first call starts a grandchild in the foreground.
        if (system === 'NESTER') return play(system, message([fg('g1', 'slow')]));
        return play(system, message([text('late')]), 50);
      };
      const controller = new AbortController();
      timer(7).subscribe(() => controller.abort());
      const tree$ = tree(callModel, { agents: { definitions: [nester, slow] }, signal: controller.signal });
      expectObservable(tree$.pipe(filter((e) => e.type === 'terminal'), map((e) => (e.type === 'terminal' ? e.reason : '')))).toBe('7ms (a|)', {
        a: 'aborted_tools',
      });
      flush();
      // The background child and the grandchild: both cut at 7, no later request.
      const cut = streamsOf(streams, 'SLOW');
      expect(cut).toHaveLength(2);
      for (const s of cut) expectSubscriptions(s.subscriptions).toBe('^ 6ms !');
      expect(streamsOf(streams, 'NESTER')).toHaveLength(1);
    });
  });
});
