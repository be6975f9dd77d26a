/**
 * The agent tree's subagent caps in virtual time (issue 15): an Agent call over `maxConcurrent`
 * (running at once) or `maxPerRun` (started in the run) gets an error result at once, the run
 * goes on, and a slot freed by a child's end is usable again. Fake models are `cold()` streams
 * chosen by system prompt; children answer after `childDelay[system]` frames.
 *
 * Letters (only these kept): i parent iteration_start, r a parent tool_result that is not an
 * error, x a parent tool_result that is an error, c a child's terminal (as the parent's
 * tool_progress), n a user message carrying a notification, T the tree's terminal.
 */
import { describe, expect, it } from 'vitest';
import { filter, tap } from 'rxjs';
import { agentLoopWithSubagents, type AgentTreeOptions } from '../src/agents/agentTree.js';
import type { CallModel } from '../src/loop/options.js';
import type { LoopEvent } from '../src/loop/types.js';
import type { MessagesRequest } from '../src/protocol/request.js';
import type { TransportOutput } from '../src/transport/types.js';
import { replyMarble } from '../src/testing/index.js';
import { message, systemText, text } from '../test/loop/helpers.js';
import { createTestScheduler } from './helpers/testScheduler.js';
import { bg, fast, fg, L, slow, treeLetters } from './helpers/treeLetters.js';
import { fakeTreeModel as fakeModel } from './helpers/fakeTreeModel.js';

const letters = treeLetters;


const tree = (callModel: CallModel, agents: AgentTreeOptions['agents']) =>
  agentLoopWithSubagents({
    model: 'claude-sonnet-4-5',
    system: 'PARENT',
    prompt: 'go',
    agents: { definitions: [fast, slow], ...agents },
    deps: { callModel },
  });

const errorTexts = (events: readonly LoopEvent[]): string[] =>
  events.flatMap((e) => (e.type === 'tool_result' && e.result.is_error ? [JSON.stringify(e.result.content)] : []));

describe('subagent caps (virtual time)', () => {
  it('over maxConcurrent the call is refused at once; a slot freed by a child is usable again', () => {
    const seen: LoopEvent[] = [];
    let requests: MessagesRequest[] = [];
    createTestScheduler().run(({ cold, expectObservable }) => {
      const model = fakeModel(
        cold,
        (n) => {
          if (n === 0) return message([bg('t1', 'fast'), bg('t2', 'slow'), bg('t3', 'fast')]);
          if (n === 2) return message([bg('t4', 'fast')]);
          return message([text(`reply ${n}`)]);
        },
        { FAST: 10, SLOW: 30 },
      );
      requests = model.requests;
      const tree$ = tree(model.callModel, { maxConcurrent: 2 }).pipe(tap((e) => e.type === 'tool_result' && seen.push(e)));
      // 0: two launched, the third refused; the turn ends and the tree waits. 10: t1's notification
      // starts phase 2, whose launch t4 gets t1's freed slot. 20: t4 ends. 30: slow ends, the run ends.
      expectObservable(letters(tree$)).toBe('(irrxi) 3ms (cniri) 3ms (cni) 5ms (cniT|)', L);
    });
    expect(seen.map((e) => (e.type === 'tool_result' ? e.toolUseId : ''))).toEqual(['t1', 't2', 't3', 't4']);
    const [refused] = errorTexts(seen);
    expect(refused).toContain('2 subagents are already running');
    // No child request was ever made for t3.
    expect(requests.map(systemText).filter((s) => s !== 'PARENT')).toEqual(['FAST', 'SLOW', 'FAST']);
  });

  it('over maxPerRun a call is refused even when none runs; the run still ends completed', () => {
    const seen: LoopEvent[] = [];
    createTestScheduler().run(({ cold, expectObservable }) => {
      const model = fakeModel(cold, (n) => (n < 3 ? message([fg(`t${n + 1}`, 'fast')]) : message([text('done')])), { FAST: 10 });
      const tree$ = tree(model.callModel, { maxPerRun: 2 }).pipe(tap((e) => (e.type === 'tool_result' || e.type === 'terminal') && seen.push(e)));
      // Foreground: each result arrives when its child ends (10, 20); the third is refused at 20.
      expectObservable(letters(tree$)).toBe('i 9ms (cri) 5ms (crixiT|)', L);
    });
    expect(errorTexts(seen)).toHaveLength(1);
    expect(errorTexts(seen)[0]).toContain('already started 2 subagents');
    const terminal = seen.at(-1)!;
    expect(terminal.type === 'terminal' && terminal.reason).toBe('completed');
  });

  it('is cold: every subscription counts its own run from zero', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const requests: MessagesRequest[] = [];
      const callModel: CallModel = (request) => {
        requests.push(request);
        const system = systemText(request);
        // Each run's first parent request launches (its history is the prompt alone).
        const msg = system === 'FAST' ? message([text('fast answer')]) : request.messages.length === 1 ? message([bg('t1', 'fast')]) : message([text('waiting')]);
        const { marbles, values } = replyMarble(msg, { frame: 0, start: system === 'FAST' ? 10 : 0 });
        return cold<TransportOutput>(marbles, values);
      };
      const tree$ = tree(callModel, { maxPerRun: 1 }).pipe(filter((e) => e.type !== 'tool_progress'));
      // With one shared counter the second run's launch would be refused ('x').
      expectObservable(letters(tree$)).toBe('(iri) 5ms (niT|)', L);
      expectObservable(letters(tree$)).toBe('(iri) 5ms (niT|)', L);
    });
  });

  it('an invalid cap is a ConfigurationError at subscribe', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const model = fakeModel(cold, () => message([text('never')]), {});
      expectObservable(tree(model.callModel, { maxConcurrent: -1 })).toBe('#', undefined, expect.objectContaining({ kind: 'configuration' }));
    });
  });
});
