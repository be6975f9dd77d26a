// @vitest-environment happy-dom
/**
 * The framework adapters in examples/: React through a real react-dom root (in happy-dom), Svelte
 * through svelte/store's own `get` and `derived`, both over a real loop run's view stream.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createElement, act } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { Observable, Subject, from } from 'rxjs';
import { derived, get } from 'svelte/store';
import { useAgentView } from '../../examples/react/useAgentView.js';
import { agentViewStore } from '../../examples/svelte/agentViewStore.js';
import { lastAnswer } from '../../src/ui/selectors.js';
import { toView } from '../../src/ui/toView.js';
import type { AgentView, ViewEvent } from '../../src/ui/types.js';
import { message, runSync } from '../loop/helpers.js';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | undefined;
afterEach(() => {
  act(() => root?.unmount());
  root = undefined;
});

async function loopEvents(): Promise<ViewEvent[]> {
  return (await runSync(() => message([{ type: 'text', text: 'Paris is the capital.', chunkSize: 7 }]))).events;
}

describe('React adapter (useSyncExternalStore)', () => {
  it('renders each new view, and unsubscribes on unmount', async () => {
    const events = await loopEvents();
    const events$ = new Subject<ViewEvent>();
    let subscribed = 0;
    const view$ = events$.pipe(toView());
    // The view stream, counting its subscribers.
    const tracked = new Observable<AgentView>((subscriber) => {
      subscribed += 1;
      const sub = view$.subscribe(subscriber);
      return () => {
        subscribed -= 1;
        sub.unsubscribe();
      };
    });
    let renders = 0;
    // One stream for the component's whole life, as the hook asks.
    function Answer() {
      renders += 1;
      const view = useAgentView(tracked);
      return createElement('p', null, `${view.running ? 'running' : 'idle'}: ${lastAnswer(view)}`);
    }
    // The project compiles without the DOM lib: happy-dom's document, typed as far as used here.
    const doc = (globalThis as unknown as { document: { createElement(tag: string): Element & { textContent: string | null } } }).document;
    const container = doc.createElement('div');
    root = createRoot(container);
    act(() => root!.render(createElement(Answer)));
    expect(container.textContent).toBe('idle: ');
    expect(subscribed).toBe(1);
    const firstDelta = events.findIndex((e) => e.type === 'model' && e.event.type === 'text_delta');
    act(() => events.slice(0, firstDelta + 1).forEach((e) => events$.next(e)));
    expect(container.textContent).toBe('running: Paris i');
    act(() => events.slice(firstDelta + 1).forEach((e) => events$.next(e)));
    expect(container.textContent).toBe('idle: Paris is the capital.');
    expect(renders).toBeGreaterThanOrEqual(3);
    act(() => root!.unmount());
    root = undefined;
    expect(subscribed).toBe(0);
  });
});

describe('Svelte adapter (store contract)', () => {
  it('works with svelte/store get and derived; the last unsubscribe stops the stream', async () => {
    const events = await loopEvents();
    const events$ = new Subject<ViewEvent>();
    const store = agentViewStore(events$.pipe(toView()));
    const answer = derived(store, (view) => lastAnswer(view));
    const seen: string[] = [];
    const stop = answer.subscribe((text) => seen.push(text));
    events.forEach((e) => events$.next(e));
    expect(get(answer)).toBe('Paris is the capital.');
    expect(seen[0]).toBe('');
    expect(seen).toContain('Paris i');
    expect(seen.at(-1)).toBe('Paris is the capital.');
    stop();
    expect(events$.observed).toBe(false);
  });

  it('a new subscriber gets the current view at once', async () => {
    const store = agentViewStore(from(await loopEvents()).pipe(toView()));
    expect(lastAnswer(get(store))).toBe('Paris is the capital.');
  });
});
