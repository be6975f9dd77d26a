/**
 * toView's timing: one view per event that changed something, in that event's frame. Letters
 * are events in the input and the view's transcript (see `label`) in the output.
 */
import { describe, expect, it } from 'vitest';
import { map } from 'rxjs';
import type { LoopEvent } from '../src/loop/types.js';
import type { AssemblyEvent } from '../src/assembly/types.js';
import { toView } from '../src/ui/toView.js';
import type { AgentView, ViewEvent } from '../src/ui/types.js';
import { createTestScheduler } from './helpers/testScheduler.js';

const tag = { chainId: 'c', depth: 0 };
const model = (event: AssemblyEvent): LoopEvent => ({ type: 'model', event, ...tag });
const usage = { input_tokens: 1, output_tokens: 1 };

const E: Record<string, ViewEvent> = {
  s: model({ type: 'message_start', id: 'msg_1', model: 'm', usage }),
  b: model({ type: 'block_start', index: 0, block: { type: 'text', text: '' } }),
  d: model({ type: 'text_delta', index: 0, text: 'Par' }),
  r: { type: 'stream_retry', retry: { type: 'stream_retry', attempt: 1, maxRetries: 2, delayMs: 0, status: undefined, errorType: 'connection', message: 'reset' }, ...tag },
  S: model({ type: 'message_start', id: 'msg_2', model: 'm', usage }),
  D: model({ type: 'text_delta', index: 0, text: 'Paris' }),
  a: {
    type: 'assistant_message',
    uuid: 'a1',
    message: { id: 'msg_2', type: 'message', role: 'assistant', model: 'm', content: [{ type: 'text', text: 'Paris' }], stop_reason: 'end_turn', usage },
    ...tag,
  },
  x: { type: 'tombstone', uuids: ['a1'], ...tag },
  n: { type: 'transition', reason: 'next_turn', turnCount: 2, ...tag },
  k: model({ type: 'block', index: 0, block: { type: 'tool_use', id: 't1', name: 'Bash', input: { command: 'ls' } } }),
  g: { type: 'tool_start', toolUseId: 't1', name: 'Bash', input: { command: 'ls' }, ...tag },
  p: { type: 'tool_progress', toolUseId: 't1', name: 'Bash', data: 'file', ...tag },
  e: { type: 'tool_result', toolUseId: 't1', name: 'Bash', result: { type: 'tool_result', tool_use_id: 't1', content: 'a.txt' }, durationMs: 4, ...tag },
};

/** The view as one string: each assistant message's parts, `|` between messages, `~` while streaming. */
function label(view: AgentView): string {
  return view.turns
    .flatMap((t) => t.items)
    .flatMap((i) => (i.kind === 'message' ? [i.parts.map((p) => (p.kind === 'tool' ? `${p.name}:${p.status}` : p.text)).join(',') + (i.streaming ? '~' : '')] : i.kind === 'notice' ? ['!'] : []))
    .join('|');
}

describe('toView timing', () => {
  it('a stream_retry retracts the partial text in its own frame; the retried text is not doubled', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const events$ = cold<ViewEvent>('s-b-d-r-S-D-a|', E);
      expectObservable(events$.pipe(toView(), map(label))).toBe('a-b-c-d-e-f-g|', {
        a: '~',
        b: '~',
        c: 'Par~',
        d: '!',
        e: '!|~',
        f: '!|Paris~',
        g: '!|Paris',
      });
    });
  });

  it('a tombstone removes its message in its frame; events that change nothing emit nothing', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const events$ = cold<ViewEvent>('S-D-a-n-x|', E);
      expectObservable(events$.pipe(toView(), map(label))).toBe('a-b-c---d|', { a: '~', b: 'Paris~', c: 'Paris', d: '' });
    });
  });

  it('tool status changes land in the frames of their events, with the start time of the scheduler', () => {
    const scheduler = createTestScheduler();
    scheduler.run(({ cold, expectObservable }) => {
      const events$ = cold<ViewEvent>('s-k--g 5ms p-e|', E);
      const views$ = events$.pipe(toView({ now: () => scheduler.now() }));
      expectObservable(views$.pipe(map(label))).toBe('a-b--c 5ms d-e|', {
        a: '~',
        b: 'Bash:pending~',
        c: 'Bash:running~',
        d: 'Bash:running~',
        e: 'Bash:done~',
      });
      expectObservable(
        views$.pipe(map((v) => String(v.turns[0]?.items.flatMap((i) => (i.kind === 'message' ? i.parts : [])).find((p) => p.kind === 'tool')?.startedAt ?? '-'))),
      ).toBe('a-a--b 5ms b-b|', { a: '-', b: '5' });
    });
  });
});

describe('toView operator contract', () => {
  it('empty: completes without a view', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold<ViewEvent>('|').pipe(toView())).toBe('|');
    });
  });

  it('one and many events; an error passes through after the views so far', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      expectObservable(cold<ViewEvent>('s|', E).pipe(toView(), map(label))).toBe('a|', { a: '~' });
      expectObservable(cold<ViewEvent>('s-D-#', E, new Error('boom')).pipe(toView(), map(label))).toBe('a-b-#', { a: '~', b: 'Paris~' }, new Error('boom'));
    });
  });

  it('never-ending: an early unsubscribe unsubscribes the source', () => {
    createTestScheduler().run(({ cold, expectObservable, expectSubscriptions }) => {
      const events$ = cold<ViewEvent>('s-D-', E);
      expectObservable(events$.pipe(toView(), map(label)), '^--!').toBe('a-b', { a: '~', b: 'Paris~' });
      expectSubscriptions(events$.subscriptions).toBe('^--!');
    });
  });

  it('a throwing clock errors the stream', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const failing = () => {
        throw new Error('no clock');
      };
      expectObservable(cold<ViewEvent>('s|', E).pipe(toView({ now: failing }))).toBe('#', undefined, new Error('no clock'));
    });
  });

  it('cold: each subscription folds from the start on its own', () => {
    createTestScheduler().run(({ cold, expectObservable }) => {
      const views$ = cold<ViewEvent>('s-D|', E).pipe(toView(), map(label));
      expectObservable(views$).toBe('a-b|', { a: '~', b: 'Paris~' });
      expectObservable(views$).toBe('a-b|', { a: '~', b: 'Paris~' });
    });
  });
});

describe('toView identity', () => {
  it('unchanged parts keep their identity across views', () => {
    const views: AgentView[] = [];
    const prompt: ViewEvent = { type: 'user_message', message: { role: 'user', content: 'list files' }, uuid: 'u1', reason: 'prompt', ...tag };
    createTestScheduler().run(({ cold, flush }) => {
      cold<ViewEvent>('u-s-k-g-e|', { ...E, u: prompt }).pipe(toView()).subscribe((v) => views.push(v));
      flush();
    });
    expect(views).toHaveLength(5);
    const first = views[0]!.turns[0]!.items[0];
    expect(views.every((v) => v.turns[0]!.items[0] === first)).toBe(true);
    // Each view differs from the one before (an emission is a change).
    expect(views.every((v, i) => i === 0 || v !== views[i - 1])).toBe(true);
  });
});
