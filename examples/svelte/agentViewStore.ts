/**
 * Svelte adapter (an example, tested in test/ui/adapters.test.ts): a view stream as a Svelte
 * readable store (`subscribe(run)` calls `run` at once with the current value and on every change,
 * and returns the unsubscriber), so a component writes `$view` and `{#each $view.turns as turn}`.
 * In an app: `import { emptyView, toExternalStore, type AgentView } from 'rxagent/ui'`.
 */
import type { Observable } from 'rxjs';
import { emptyView, toExternalStore, type AgentView } from '../../src/ui/index.js';

export interface Readable<T> {
  subscribe(run: (value: T) => void): () => void;
}

export function agentViewStore(view$: Observable<AgentView>, initial: AgentView = emptyView()): Readable<AgentView> {
  const store = toExternalStore(view$, initial);
  return {
    subscribe(run) {
      const stop = store.subscribe(() => run(store.getSnapshot()));
      run(store.getSnapshot());
      return stop;
    },
  };
}
