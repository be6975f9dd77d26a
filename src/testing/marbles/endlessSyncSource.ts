import { Observable } from 'rxjs';

/** A synchronous source that never completes, and how many values it has pushed so far. */
export interface EndlessSyncSource {
  readonly source: Observable<number>;
  /** Values pushed before the subscriber closed: a correct early unsubscribe stops it at once. */
  emitted(): number;
}

/**
 * The checklist's "never-ending with early unsubscribe" case for an operator: 0, 1, 2, … pushed
 * synchronously inside subscribe until the subscriber is closed. An operator that does not pass
 * an early unsubscribe (say `take(3)` downstream) back to its source before the source's next
 * push would loop forever, so a test on it hangs or reports `emitted()` above what was taken.
 */
export function endlessSyncSource(): EndlessSyncSource {
  let emitted = 0;
  const source = new Observable<number>((subscriber) => {
    for (let i = 0; !subscriber.closed; i++) {
      emitted++;
      subscriber.next(i);
    }
  });
  return { source, emitted: () => emitted };
}
