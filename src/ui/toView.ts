/**
 * `toView()`: ViewEvent stream -> AgentView stream, one view per event that changed something
 * (in that event's frame), starting from `initial` (default: the empty view, not emitted).
 * `stamp` gives the time a tool started (default `Date.now`; pass the scheduler's `now` in tests,
 * or use `toViewStamped()` when events carry their own time, as the server's do).
 */
import { filter, map, scan, type OperatorFunction } from 'rxjs';
import { emptyView, reduceView } from './reduceView.js';
import type { AgentView, StampedEvent, ViewEvent } from './types.js';

export interface ToViewOptions {
  readonly initial?: AgentView;
  readonly now?: () => number;
}

export function toView(options: ToViewOptions = {}): OperatorFunction<ViewEvent, AgentView> {
  const now = options.now ?? Date.now;
  return (events$) => events$.pipe(map((event): StampedEvent => ({ at: now(), event })), toViewStamped(options.initial));
}

/** `toView` for events that carry their time (`{ at, event }`). */
export function toViewStamped(initial: AgentView = emptyView()): OperatorFunction<StampedEvent, AgentView> {
  return (events$) =>
    events$.pipe(
      scan(
        (state, { at, event }) => {
          const view = reduceView(state.view, event, at);
          return { view, changed: view !== state.view };
        },
        { view: initial, changed: false },
      ),
      filter((state) => state.changed),
      map((state) => state.view),
    );
}
