/**
 * React adapter (an example, tested in test/ui/adapters.test.ts): the latest AgentView of a view
 * stream, re-rendering on every new view. `useSyncExternalStore` reads a stable snapshot, so a
 * render never tears between two views; `toExternalStore` shares one subscription per store.
 * In an app: `import { emptyView, toExternalStore, type AgentView } from 'rxagent/ui'`.
 */
import { useMemo, useSyncExternalStore } from 'react';
import type { Observable } from 'rxjs';
import { emptyView, toExternalStore, type AgentView } from '../../src/ui/index.js';

/** `view$` should be stable across renders (create it once, e.g. in a `useMemo` or outside). */
export function useAgentView(view$: Observable<AgentView>, initial: AgentView = emptyView()): AgentView {
  const store = useMemo(() => toExternalStore(view$, initial), [view$, initial]);
  return useSyncExternalStore(store.subscribe, store.getSnapshot, store.getSnapshot);
}
