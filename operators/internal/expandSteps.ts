/**
 * `expandSteps(seed$, step, isStep)`: `expand` for a stream of events interleaved with the
 * steps that continue it. Only the steps are projected (each into the next stretch of events
 * and steps); the events go straight to the output in their frame. Plain `expand` would call
 * the projection for every event too and subscribe an inner `EMPTY` for each: one extra
 * subscription per event on a path that carries every streamed delta.
 *
 * ```
 * seed$:     (s|)
 * step(s):    -e-e-(t|)              t: a step
 * step(t):          -e-(e|)
 * result:    --e-e---e-(e|)          completes when the last projected stretch does
 * ```
 *
 * Steps are projected synchronously as they arrive (`expand`'s default), so a stretch that
 * ends in a step hands over in the same frame. Errors of any stretch error the result.
 * Private to the package.
 */
import { defer, expand, filter, ignoreElements, merge, Subject, tap, type Observable } from 'rxjs';

export function expandSteps<E, S>(seed$: Observable<E | S>, step: (s: S) => Observable<E | S>, isStep: (item: E | S) => item is S): Observable<E> {
  return defer(() => {
    const events$ = new Subject<E>();
    const route = (item: E | S): item is S => {
      if (isStep(item)) return true;
      events$.next(item);
      return false;
    };
    const steps$ = seed$.pipe(
      filter(route),
      expand((s) => step(s).pipe(filter(route))),
      ignoreElements(),
      tap({ complete: () => events$.complete(), error: (error: unknown) => events$.error(error) }),
    );
    // `events$` first, so nothing routed during the subscription of `steps$` is missed.
    return merge(events$, steps$);
  });
}
