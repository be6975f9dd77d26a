import { describe, expect, expectTypeOf, it } from 'vitest';
import { Observable, of, take, type OperatorFunction } from 'rxjs';
import { ofLoopType } from '../operators/ofLoopType.js';
import { subagentEvents } from '../operators/subagentEvents.js';
import { textDeltas } from '../operators/textDeltas.js';
import type { SubagentEventData } from '../src/agents/events.js';
import type { LoopEvent, LoopEventOf } from '../src/loop/types.js';
import { createTestScheduler } from './helpers/testScheduler.js';

const t = { chainId: 'c', depth: 0 };
const start: LoopEvent = { ...t, type: 'iteration_start', turnCount: 1, model: 'm', transition: undefined };
const delta = (text: string): LoopEvent => ({ ...t, type: 'model', event: { type: 'text_delta', index: 0, text } });
const thinking: LoopEvent = { ...t, type: 'model', event: { type: 'thinking_delta', index: 0, thinking: 'hmm' } };
const toolStart: LoopEvent = { ...t, type: 'tool_start', toolUseId: 'u1', name: 'Read', input: {} };
const toolResult: LoopEvent = { ...t, type: 'tool_result', toolUseId: 'u1', name: 'Read', result: { type: 'tool_result', tool_use_id: 'u1', content: 'x' }, durationMs: 1 };
const envelope = (event: LoopEvent, agentDepth: number, parentToolUseId: string): SubagentEventData => ({
  type: 'subagent_event',
  agentId: `agent-${agentDepth}`,
  agentType: 'general',
  agentDepth,
  parentToolUseId,
  background: false,
  event,
});
const progress = (data: SubagentEventData): LoopEvent => ({ ...t, type: 'tool_progress', toolUseId: data.parentToolUseId, name: 'Agent', data });
const childEnvelope = envelope(delta('child'), 1, 'u1');
const grandchildEnvelope = envelope(delta('grandchild'), 2, 'u2');
const child = progress(childEnvelope);
const grandchild = progress(envelope(progress(grandchildEnvelope), 1, 'u1'));

const values = { i: start, d: delta('He'), e: delta('llo'), h: thinking, s: toolStart, r: toolResult, p: child, q: grandchild };
const boom = new Error('loop failed');

describe('ofLoopType', () => {
  it('empty, and a source with none of the types', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const source = cold('-i-d-|', values);
      expectObservable(cold<LoopEvent>('|').pipe(ofLoopType('tool_start'))).toBe('|');
      expectObservable(source.pipe(ofLoopType('tool_start'))).toBe('-----|');
      expectSubscriptions(source.subscriptions).toBe('^----!');
    });
  });

  it('one type, and many types (in source order)', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const source = cold('-i-s-d-r-|', values);
      expectObservable(source.pipe(ofLoopType('tool_result'))).toBe('-------r-|', values);
      expectObservable(source.pipe(ofLoopType('tool_start', 'tool_result'))).toBe('---s---r-|', values);
    });
  });

  it('error passes through; never-ending with an early unsubscribe', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      expectObservable(cold('-s-#', values, boom).pipe(ofLoopType('tool_start'))).toBe('-s-#', values, boom);
      const endless = hot('-s-s-s-', values);
      expectObservable(endless.pipe(ofLoopType('tool_start')), '^--!').toBe('-s-', values);
      expectSubscriptions(endless.subscriptions).toBe('^--!');
    });
  });

  it('narrows the type to the selected events, and rejects a misspelt type (type test)', () => {
    const out = of(toolStart).pipe(ofLoopType('tool_result', 'tool_start'));
    expectTypeOf(out).toEqualTypeOf<Observable<LoopEventOf<'tool_result' | 'tool_start'>>>();
    expectTypeOf(of(delta('x')).pipe(textDeltas())).toEqualTypeOf<Observable<string>>();
    expectTypeOf(of(child).pipe(subagentEvents())).toEqualTypeOf<Observable<SubagentEventData>>();
    // @ts-expect-error not a loop event type
    ofLoopType('tool_rezult');
  });
});

describe('textDeltas', () => {
  it('empty, one, many: only visible text, as strings', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-i-|', values).pipe(textDeltas())).toBe('---|');
      expectObservable(cold('-d|', values).pipe(textDeltas())).toBe('-a|', { a: 'He' });
      expectObservable(cold('-d-h-s-e|', values).pipe(textDeltas())).toBe('-a-----b|', { a: 'He', b: 'llo' });
    });
  });

  it("does not include subagents' text", () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-p-q-d|', values).pipe(textDeltas())).toBe('-----a|', { a: 'He' });
    });
  });

  it('error passes through; never-ending with an early unsubscribe', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      expectObservable(cold('-d-#', values, boom).pipe(textDeltas())).toBe('-a-#', { a: 'He' }, boom);
      const endless = hot('-d-e-d-', values);
      expectObservable(endless.pipe(textDeltas()), '^---!').toBe('-a-b', { a: 'He', b: 'llo' });
      expectSubscriptions(endless.subscriptions).toBe('^---!');
    });
  });
});

describe('subagentEvents', () => {
  it('empty, one, many: the innermost envelope of each subagent event', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold('-i-s-|', values).pipe(subagentEvents())).toBe('-----|');
      expectObservable(cold('-p|', values).pipe(subagentEvents())).toBe('-a|', { a: childEnvelope });
      expectObservable(cold('-p-d-q-r|', values).pipe(subagentEvents())).toBe('-a---b--|', { a: childEnvelope, b: grandchildEnvelope });
    });
  });

  it('a tool_progress that is not a subagent envelope is skipped', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const plain: LoopEvent = { ...t, type: 'tool_progress', toolUseId: 'u9', name: 'Bash', data: { type: 'output', text: 'x' } };
      expectObservable(cold('-x-p|', { x: plain, p: child }).pipe(subagentEvents())).toBe('---a|', { a: childEnvelope });
    });
  });

  it('error passes through; never-ending with an early unsubscribe', () => {
    createTestScheduler().run(({ cold, hot, expectObservable, expectSubscriptions }) => {
      expectObservable(cold('-p-#', values, boom).pipe(subagentEvents())).toBe('-a-#', { a: childEnvelope }, boom);
      const endless = hot('-p-q-p-', values);
      expectObservable(endless.pipe(subagentEvents()), '^--!').toBe('-a-', { a: childEnvelope });
      expectSubscriptions(endless.subscriptions).toBe('^--!');
    });
  });
});

describe('selectors and synchronous early unsubscribe', () => {
  const selectors: [string, () => OperatorFunction<LoopEvent, unknown>][] = [
    ['ofLoopType', () => ofLoopType('model')],
    ['textDeltas', () => textDeltas()],
  ];
  it.each(selectors)('%s: a synchronous infinite source stops at take(3)', (_name, selector) => {
    let emitted = 0;
    const infinite = new Observable<LoopEvent>((subscriber) => {
      for (let i = 0; !subscriber.closed; i++) {
        emitted++;
        subscriber.next(delta(String(i)));
      }
    });
    const seen: unknown[] = [];
    infinite.pipe(selector(), take(3)).subscribe((v) => seen.push(v));
    expect(seen).toHaveLength(3);
    expect(emitted).toBe(3);
  });
});
