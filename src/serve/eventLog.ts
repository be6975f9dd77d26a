/**
 * A session's event log with a cap. Every event gets the next id; when the log holds more than
 * `maxEvents`, its older half is folded into a view snapshot with the same pure reducer the
 * page uses (`reduceView`), so memory grows with the conversation, not with its deltas. A reader
 * that has everything up to an id still in the log gets exactly what follows it; one from before
 * the snapshot (a new tab, or a tab that was away while the log was folded) gets the snapshot
 * first (a `view_snapshot` event, which replaces its view) and then the rest: the view it folds
 * is the one it would have folded from every event.
 */
import { emptyView, reduceView } from '../ui/reduceView.js';
import type { AgentView, ViewEvent } from '../ui/types.js';

/** One entry of the log: its SSE id, when it happened, the event. */
export interface LoggedEvent {
  readonly id: number;
  readonly at: number;
  readonly event: ViewEvent;
}

/** Default cap: a long turn's deltas (a few thousand) stay replayable one by one. */
export const DEFAULT_MAX_LOG_EVENTS = 10_000;

export class EventLog {
  private entries: LoggedEvent[] = [];
  private lastId = 0;
  /** The fold of every event dropped so far, and the id of the last one folded in. */
  private folded: { view: AgentView; throughId: number; at: number } | undefined;

  constructor(private readonly maxEvents: number = DEFAULT_MAX_LOG_EVENTS) {
    if (!Number.isInteger(maxEvents) || maxEvents < 2) throw new RangeError(`the event log cap must be a whole number >= 2, got ${maxEvents}`);
  }

  get lastEventId(): number {
    return this.lastId;
  }

  /** How many events are kept one by one (for tests and diagnostics). */
  get size(): number {
    return this.entries.length;
  }

  append(at: number, event: ViewEvent): LoggedEvent {
    const entry: LoggedEvent = { id: ++this.lastId, at, event };
    this.entries.push(entry);
    if (this.entries.length > this.maxEvents) this.fold(this.entries.length - Math.floor(this.maxEvents / 2));
    return entry;
  }

  /** What a reader that has seen everything up to `afterId` needs to be up to date. */
  since(afterId: number): readonly LoggedEvent[] {
    const folded = this.folded;
    if (folded && afterId < folded.throughId) {
      return [{ id: folded.throughId, at: folded.at, event: { type: 'view_snapshot', view: folded.view } }, ...this.entries];
    }
    const first = this.entries[0]?.id ?? this.lastId + 1;
    return this.entries.slice(Math.max(0, afterId + 1 - first));
  }

  private fold(count: number): void {
    const dropped = this.entries.slice(0, count);
    this.entries = this.entries.slice(count);
    let view = this.folded?.view ?? emptyView();
    for (const entry of dropped) view = reduceView(view, entry.event, entry.at);
    const last = dropped[dropped.length - 1]!;
    this.folded = { view, throughId: last.id, at: last.at };
  }
}
