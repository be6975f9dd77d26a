/**
 * The view stream as an external store: `subscribe(listener)` and `getSnapshot()`, the shape
 * React's `useSyncExternalStore` and Svelte's store contract both build on. One subscription to
 * `view$` is shared by every listener while at least one listens (refCount), and the last view
 * is kept for `getSnapshot()` (a stable reference between changes, as React requires).
 */
import type { Observable, Subscription } from 'rxjs';
import type { AgentView } from './types.js';

export interface ViewStore {
  /** Calls `listener` after every new view; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void;
  getSnapshot(): AgentView;
}

export function toExternalStore(view$: Observable<AgentView>, initial: AgentView): ViewStore {
  let current = initial;
  const listeners = new Set<() => void>();
  let source: Subscription | undefined;
  return {
    subscribe(listener) {
      listeners.add(listener);
      if (!source) {
        source = view$.subscribe((view) => {
          current = view;
          for (const l of [...listeners]) l();
        });
      }
      return () => {
        listeners.delete(listener);
        if (listeners.size === 0) {
          source?.unsubscribe();
          source = undefined;
        }
      };
    },
    getSnapshot: () => current,
  };
}
