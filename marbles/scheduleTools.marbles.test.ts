/**
 * scheduleTools: one diagram per scheduling rule (SPEC §4). The `expectSubscriptions` lines are
 * the point: they say in which frame each tool's `call` started and stopped.
 *
 * Source letters: a, b, c... are tool_use blocks (index 0, 1, 2... -> ids t0, t1, t2...),
 * `B` a later block_start, `d` message_delta, `m` the final message. Output labels: `S0` start
 * of t0, `R0` its result, `E0` an error result, `B:...` the batch in tool_use order.
 */
import { describe, expect, it } from 'vitest';
import { Observable, of, take, toArray } from 'rxjs';
import { scheduleTools } from '../operators/scheduleTools.js';
import type { AssemblyOutput } from '../src/assembly/types.js';
import type { ToolEvent, ToolYield } from '../src/tools/types.js';
import { defineTool } from '../src/tools/defineTool.js';
import { z } from 'zod';
import { createTestScheduler } from './helpers/testScheduler.js';
import {
  blockStart,
  fakeTool,
  label,
  labels,
  message,
  messageDelta,
  outcome,
  stamped,
  textDelta,
  toolUse,
} from './helpers/toolFixtures.js';

describe('scheduleTools: start rules', () => {
  it('starts safe tools at their own block stop, overlapping each other and the still-streaming model', () => {
    createTestScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const a = cold('   ----(x|)', { x: outcome('a') });
      const b = cold('     ---(y|)', { y: outcome('b') });
      //                  the model is still streaming text while both run
      const src = hot('-a-b-t-t-d-(m|)', { a: toolUse(0, 'Read', 'a'), b: toolUse(1, 'Read', 'b'), t: textDelta(2), d: messageDelta('end_turn'), m: message('end_turn') });
      const read = fakeTool('Read', { safe: true, calls: { a, b } });
      const expected = '-s-t-uv----(B|)';
      expectObservable(src.pipe(scheduleTools({ tools: [read], shared: {} }), labels)).toBe(expected, {
        s: 'S0', t: 'S1', u: 'R0', v: 'R1', B: 'B:R0,R1',
      });
      expectSubscriptions(a.subscriptions).toBe('-^---!');
      expectSubscriptions(b.subscriptions).toBe('---^--!');
    });
  });

  it('holds an unsafe tool until the running safe ones finish, and it blocks every later call', () => {
    const ts = createTestScheduler();
    ts.run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const r1 = cold('  -----(x|)', { x: outcome('r1') });
      const w = cold('         --(y|)', { y: outcome('w') });
      const r2 = cold('          -(z|)', { z: outcome('r2') });
      const src = hot('-a-b-c-d|', { a: toolUse(0, 'Read', 'r1'), b: toolUse(1, 'Write', 'w'), c: toolUse(2, 'Read', 'r2'), d: messageDelta('tool_use') });
      //                ^ Read   ^ Write queued   ^ Read queued behind the Write barrier
      const tools = [fakeTool('Read', { safe: true, calls: { r1, r2 } }), fakeTool('Write', { safe: false, calls: { w } })];
      expectObservable(src.pipe(scheduleTools({ tools, shared: {} }), stamped(() => ts.now()), toArray())).toBe('---------(l|)', {
        l: ['1 S0', '6 R0', '6 S1', '8 R1', '8 S2', '9 R2', '9 B:R0,R1,R2'],
      });
      expectSubscriptions(r1.subscriptions).toBe('-^----!');
      expectSubscriptions(w.subscriptions).toBe('------^-!');
      expectSubscriptions(r2.subscriptions).toBe('--------^!');
    });
  });

  it('delivers a finished safe result past a still-running safe one', () => {
    createTestScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const slow = cold('-------(x|)', { x: outcome('slow') });
      const fast = cold('  -(y|)', { y: outcome('fast') });
      const src = hot('  -a-b------(m|)', { a: toolUse(0, 'Grep', 'slow'), b: toolUse(1, 'Grep', 'fast'), m: message('tool_use') });
      const grep = fakeTool('Grep', { safe: true, calls: { slow, fast } });
      expectObservable(src.pipe(scheduleTools({ tools: [grep], shared: {} }), labels)).toBe('-s-tu---v-(B|)', {
        s: 'S0', t: 'S1', u: 'R1', v: 'R0', B: 'B:R0,R1',
      });
      expectSubscriptions(slow.subscriptions).toBe('-^------!');
      expectSubscriptions(fast.subscriptions).toBe('---^!');
    });
  });

  it('holds an unsafe tool until the model moves on (next block_start)', () => {
    createTestScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const w = cold('       --(y|)', { y: outcome('w') });
      const src = hot('-a---B---(m|)', { a: toolUse(0, 'Write', 'w'), B: blockStart(1), m: message('end_turn') });
      const write = fakeTool('Write', { safe: false, calls: { w } });
      expectObservable(src.pipe(scheduleTools({ tools: [write], shared: {} }), labels)).toBe('-----s-r-(B|)', {
        s: 'S0', r: 'R0', B: 'B:R0',
      });
      expectSubscriptions(w.subscriptions).toBe('-----^-!');
    });
  });

  it('holds an unsafe tool until message_delta with stop_reason tool_use', () => {
    createTestScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const w = cold('     -(y|)', { y: outcome('w') });
      const src = hot('-a--d-(m|)', { a: toolUse(0, 'Write', 'w'), d: messageDelta('tool_use'), m: message('tool_use') });
      const write = fakeTool('Write', { safe: false, calls: { w } });
      expectObservable(src.pipe(scheduleTools({ tools: [write], shared: {} }), labels)).toBe('----sr(B|)', {
        s: 'S0', r: 'R0', B: 'B:R0',
      });
      expectSubscriptions(w.subscriptions).toBe('----^!');
    });
  });

  it('never runs the call cut off by max_tokens and tells the model to split it', () => {
    const results: ToolEvent[] = [];
    createTestScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const r = cold('  -(x|)', { x: outcome('r') });
      const w = cold('  -(y|)', { y: outcome('w') });
      const src = hot('-a-b-d-(m|)', { a: toolUse(0, 'Read', 'r'), b: toolUse(1, 'Write', 'w'), d: messageDelta('max_tokens'), m: message('max_tokens') });
      const tools = [fakeTool('Read', { safe: true, calls: { r } }), fakeTool('Write', { safe: false, calls: { w } })];
      const out = src.pipe(scheduleTools({ tools, shared: {} }));
      out.subscribe((e) => results.push(e));
      expectObservable(out.pipe(labels)).toBe('-sr--e-(B|)', { s: 'S0', r: 'R0', e: 'E1', B: 'B:R0,E1' });
      expectSubscriptions(r.subscriptions).toBe(['-^!', '-^!']);
      expectSubscriptions(w.subscriptions).toBe([]);
    });
    const truncated = results.find((e) => e.type === 'tool_result' && e.toolUseId === 't1');
    expect(truncated?.type === 'tool_result' && truncated.result.content).toMatch(/cut off by the output token limit.*smaller pieces/s);
  });

  it('treats isConcurrencySafe throwing as unsafe (held for the model, a barrier)', () => {
    createTestScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const q = cold('    -(x|)', { x: outcome('q') });
      const tool = defineTool({
        name: 'Odd',
        description: 'safety check throws',
        inputSchema: z.strictObject({ key: z.string() }),
        isConcurrencySafe: () => {
          throw new Error('cannot tell');
        },
        call: () => q,
      });
      const src = hot('-a--B-(m|)', { a: toolUse(0, 'Odd', 'q'), B: blockStart(1), m: message('end_turn') });
      expectObservable(src.pipe(scheduleTools({ tools: [tool], shared: {} }), labels)).toBe('----sr(B|)', { s: 'S0', r: 'R0', B: 'B:R0' });
      expectSubscriptions(q.subscriptions).toBe('----^!');
    });
  });

  it('keeps tool_use order in the batch whatever the completion order', () => {
    const ts = createTestScheduler();
    ts.run(({ hot, cold, expectObservable }) => {
      const c0 = cold('-----(x|)', { x: outcome('0') });
      const c1 = cold('---(x|)', { x: outcome('1') });
      const c2 = cold('-(x|)', { x: outcome('2') });
      const src = hot('-abc---(m|)', { a: toolUse(0, 'Read', 'c0'), b: toolUse(1, 'Read', 'c1'), c: toolUse(2, 'Read', 'c2'), m: message('tool_use') });
      const read = fakeTool('Read', { safe: true, calls: { c0, c1, c2 } });
      expectObservable(src.pipe(scheduleTools({ tools: [read], shared: {} }), stamped(() => ts.now()), toArray())).toBe('-------(l|)', {
        l: ['1 S0', '2 S1', '3 S2', '4 R2', '5 R1', '6 R0', '7 B:R0,R1,R2'],
      });
    });
  });
});

describe('scheduleTools: interrupts, aborts, errors', () => {
  it('on interrupt cancels the cancel-tools, lets block-tools finish and never starts queued ones', () => {
    const interruptible: boolean[] = [];
    createTestScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const c = cold('   ------(x|)', { x: outcome('c') });
      const k = cold('    ------(y|)', { y: outcome('k') });
      const w = cold('-(z|)', { z: outcome('w') });
      const src = hot('-a-b-c-------', { a: toolUse(0, 'Search', 'c'), b: toolUse(1, 'Fetch', 'k'), c: toolUse(2, 'Write', 'w') });
      const stop = hot('-----i', { i: 'user typed' });
      const srcSubs = '^--------!';
      const tools = [
        fakeTool('Search', { safe: true, interrupt: 'cancel', calls: { c } }),
        fakeTool('Fetch', { safe: true, interrupt: 'block', calls: { k } }),
        fakeTool('Write', { safe: false, calls: { w } }),
      ];
      const out = src.pipe(scheduleTools({ tools, shared: {}, interrupt$: stop, onInterruptibleChange: (v) => interruptible.push(v) }));
      expectObservable(out.pipe(labels)).toBe('-s-t-(ue)(vB|)', { s: 'S0', t: 'S1', u: 'E0', e: 'E2', v: 'R1', B: 'B:E0,R1,E2' });
      expectSubscriptions(c.subscriptions).toBe('-^---!');
      expectSubscriptions(k.subscriptions).toBe('---^-----!');
      expectSubscriptions(w.subscriptions).toBe([]);
      expectSubscriptions(src.subscriptions).toBe(srcSubs);
    });
    expect(interruptible).toEqual([false]);
  });

  it('an abort mid-batch stops everything and still gives every tool_use a result', () => {
    createTestScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const r = cold('   --------(x|)', { x: outcome('r') });
      const k = cold('    --------(y|)', { y: outcome('k') });
      const w = cold('-(z|)', { z: outcome('w') });
      const src = hot('-a-b-c-------', { a: toolUse(0, 'Read', 'r'), b: toolUse(1, 'Fetch', 'k'), c: toolUse(2, 'Write', 'w') });
      const abort = hot('------x', { x: 'abort' });
      const tools = [
        fakeTool('Read', { safe: true, interrupt: 'cancel', calls: { r } }),
        fakeTool('Fetch', { safe: true, interrupt: 'block', calls: { k } }),
        fakeTool('Write', { safe: false, calls: { w } }),
      ];
      expectObservable(src.pipe(scheduleTools({ tools, shared: {}, abort$: abort }), labels)).toBe('-s-t--(abcB|)', {
        s: 'S0', t: 'S1', a: 'E0', b: 'E1', c: 'E2', B: 'B:E0,E1,E2',
      });
      expectSubscriptions(r.subscriptions).toBe('-^----!');
      expectSubscriptions(k.subscriptions).toBe('---^--!');
      expectSubscriptions(w.subscriptions).toBe([]);
      expectSubscriptions(src.subscriptions).toBe('^-----!');
    });
  });

  it('a failing model stream stops running tools, emits the batch with synthetic results, then the error', () => {
    const failure = new Error('stream broke');
    createTestScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const fast = cold('  -(x|)', { x: outcome('f') });
      const slow = cold('   ------(y|)', { y: outcome('s') });
      const src = hot('  -a-b--#', { a: toolUse(0, 'Read', 'fast'), b: toolUse(1, 'Read', 'slow') }, failure);
      const read = fakeTool('Read', { safe: true, calls: { fast, slow } });
      expectObservable(src.pipe(scheduleTools({ tools: [read], shared: {} }), labels)).toBe('-srt--(eB#)', { s: 'S0', r: 'R0', t: 'S1', e: 'E1', B: 'B:R0,E1' }, failure);
      expectSubscriptions(slow.subscriptions).toBe('---^--!');
    });
  });

  it('a stream_retry voids the attempt: its running tools stop and only the new attempt is batched', () => {
    createTestScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const old = cold('   -----(x|)', { x: outcome('old') });
      const neu = cold('       -(y|)', { y: outcome('new') });
      const retry: AssemblyOutput = { type: 'stream_retry', attempt: 1, maxRetries: 3, delayMs: 0, status: undefined, errorType: 'connection', message: 'reset' };
      const src = hot('-a-r-b--(m|)', { a: toolUse(0, 'Read', 'old'), r: retry, b: toolUse(0, 'Read', 'neu'), m: message('tool_use') });
      const read = fakeTool('Read', { safe: true, calls: { old, neu } });
      expectObservable(src.pipe(scheduleTools({ tools: [read], shared: {} }), labels)).toBe('-s---tr-(B|)', { s: 'S0', t: 'S0', r: 'R0', B: 'B:R0' });
      expectSubscriptions(old.subscriptions).toBe('-^-!');
      expectSubscriptions(neu.subscriptions).toBe('-----^!');
    });
  });

  it('a per-call timeout and a batch timeout become error results', () => {
    createTestScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const hang = cold<ToolYield<string>>('-');
      const hang2 = cold<ToolYield<string>>('-');
      const src = hot('-a-b-(m|)', { a: toolUse(0, 'Read', 'hang'), b: toolUse(1, 'Read', 'hang2'), m: message('tool_use') });
      const read = fakeTool('Read', { safe: true, calls: { hang, hang2 } });
      // per call 4 ms: t0 times out at 5, t1 at 7; the batch limit (10 ms from frame 1) is not reached
      expectObservable(src.pipe(scheduleTools({ tools: [read], shared: {}, timeoutMs: 4, batchTimeoutMs: 10 }), labels)).toBe('-s-t-e-(fB|)', {
        s: 'S0', t: 'S1', e: 'E0', f: 'E1', B: 'B:E0,E1',
      });
      expectSubscriptions(hang.subscriptions).toBe('-^---!');
      expectSubscriptions(hang2.subscriptions).toBe('---^---!');
    });
    createTestScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const hang = cold<ToolYield<string>>('-');
      const src = hot('-a-(m|)', { a: toolUse(0, 'Read', 'hang'), m: message('tool_use') });
      const read = fakeTool('Read', { safe: true, calls: { hang } });
      expectObservable(src.pipe(scheduleTools({ tools: [read], shared: {}, batchTimeoutMs: 5 }), labels)).toBe('-s----(eB|)', {
        s: 'S0', e: 'E0', B: 'B:E0',
      });
      expectSubscriptions(hang.subscriptions).toBe('-^----!');
    });
  });
});

describe('scheduleTools: operator checklist', () => {
  const read = (calls: Record<string, Observable<ReturnType<typeof outcome>>>) => fakeTool('Read', { safe: true, calls });

  it('empty source: completes with no batch', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold<AssemblyOutput>('|').pipe(scheduleTools({ tools: [], shared: {} }))).toBe('|');
    });
  });

  it('never-ending source and tool, unsubscribed early: the tool is stopped too', () => {
    createTestScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const hang = cold<ToolYield<string>>('-');
      const src = hot('-a----', { a: toolUse(0, 'Read', 'hang') });
      expectObservable(src.pipe(scheduleTools({ tools: [read({ hang })], shared: {} }), labels), '----!').toBe('-s--', { s: 'S0' });
      expectSubscriptions(hang.subscriptions).toBe('-^--!');
      expectSubscriptions(src.subscriptions).toBe('^---!');
    });
  });

  it('an unknown tool and a throwing call become error results, not stream errors', () => {
    createTestScheduler().run(({ hot, expectObservable }) => {
      const src = hot('-a-b----(m|)', { a: toolUse(0, 'Reed', 'x'), b: toolUse(1, 'Read', 'missing'), m: message('tool_use') });
      expectObservable(src.pipe(scheduleTools({ tools: [read({})], shared: {} }), labels)).toBe('-e-(sf)-(B|)', {
        e: 'E0', s: 'S1', f: 'E1', B: 'B:E0,E1',
      });
    });
  });

  it('a throwing onInterruptibleChange errors the output and stops the running tools (it escaped as an unhandled error)', () => {
    const seen: boolean[] = [];
    createTestScheduler().run(({ hot, cold, expectObservable, expectSubscriptions }) => {
      const k = cold('   --(y|)', { y: outcome('k') });
      const c = cold('     ------(x|)', { x: outcome('c') });
      const src = hot('-a-b-------(m|)', { a: toolUse(0, 'Fetch', 'k'), b: toolUse(1, 'Search', 'c'), m: message('tool_use') });
      const tools = [fakeTool('Search', { safe: true, interrupt: 'cancel', calls: { c } }), fakeTool('Fetch', { safe: true, interrupt: 'block', calls: { k } })];
      const onInterruptibleChange = (value: boolean) => {
        seen.push(value);
        // false when the 'block' tool starts; throws when it ends (inside that tool's delivery)
        if (value) throw new Error('listener failed');
      };
      const out = src.pipe(scheduleTools({ tools, shared: {}, onInterruptibleChange }), labels);
      expectObservable(out).toBe('-s-(tr#)', { s: 'S0', t: 'S1', r: 'R0' }, new Error('listener failed'));
      expectSubscriptions(c.subscriptions).toBe('---(^!)');
      expectSubscriptions(src.subscriptions).toBe('^--!');
    });
    expect(seen).toEqual([false, true]);
  });

  it('a second subscription starts fresh (cold)', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const r = cold('-(x|)', { x: outcome('r') });
      const src = cold('-a-(m|)', { a: toolUse(0, 'Read', 'r'), m: message('tool_use') });
      const out = src.pipe(scheduleTools({ tools: [read({ r })], shared: {} }), labels);
      const values = { s: 'S0', r: 'R0', B: 'B:R0' };
      expectObservable(out).toBe('-sr(B|)', values);
      expectObservable(out).toBe('-sr(B|)', values);
    });
  });

  it('stops listening to a synchronous source when unsubscribed', () => {
    const sideEffects: number[] = [];
    const source = new Observable<AssemblyOutput>((subscriber) => {
      for (let i = 0; !subscriber.closed && i < 10; i++) {
        sideEffects.push(i);
        subscriber.next(toolUse(i, 'Now', `k${i}`));
      }
    });
    const now = defineTool({
      name: 'Now',
      description: 'synchronous',
      inputSchema: z.strictObject({ key: z.string() }),
      isConcurrencySafe: true,
      call: ({ key }) => key,
    });
    const seen: string[] = [];
    source.pipe(scheduleTools({ tools: [now], shared: {} }), take(3)).subscribe((e) => seen.push(label(e)));
    expect(seen).toEqual(['S0', 'R0', 'S1']);
    expect(sideEffects).toEqual([0, 1]);
  });

  it('synchronous tools over a synchronous source finish in one pass', () => {
    const now = defineTool({
      name: 'Now',
      description: 'synchronous',
      inputSchema: z.strictObject({ key: z.string() }),
      isConcurrencySafe: false,
      call: ({ key }) => key,
    });
    const seen: string[] = [];
    of(toolUse(0, 'Now', 'a'), blockStart(1, 'tool_use'), toolUse(1, 'Now', 'b'), messageDelta('tool_use'))
      .pipe(scheduleTools({ tools: [now], shared: {} }))
      .subscribe((e) => seen.push(label(e)));
    expect(seen).toEqual(['S0', 'R0', 'S1', 'R1', 'B:R0,R1']);
  });
});
