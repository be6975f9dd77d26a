/**
 * `foldEach({ seed, fold, direct, sink })`: a `scan` whose items go to `sink` instead of down the
 * stream. Each value is folded into the state (`fold` gives the next state and the items the
 * value produced), or, when `direct` says the value leaves the state as it is, its one item is
 * handed on without a fold step. The returned stream emits nothing: it ends (completes or
 * errors) as the source does, so it still says when the work is over and carries its failures.
 * Private to the package.
 *
 * Why: on the loop's path the values are stream events (one per few tokens), almost all of them
 * deltas the fold only wraps, and the sink is the loop's output. A `scan` + emit would allocate a
 * step per delta and send each item through every operator between this stage and the output
 * (the iteration's `concat`, `catchError`s, `takeWhile`, `expand`'s inner subscriber, ...);
 * here a delta costs its item and one call. The items are not reordered: whatever the stream
 * itself carries reaches the same output synchronously, in the frames it happens in.
 *
 * ```
 * source:          -a---b-c-|       a → [1, 2], b → [], c → [3]
 * foldEach(...)
 * sink receives:   -(12)--3-
 * result:          ---------|
 * ```
 *
 * One subscriber hop per value (`subscribeLinked`): an unsubscribe from inside the sink (the
 * consumer took what it wanted) stops a synchronous source at once, and the rest of the items of
 * that value are dropped. A throwing `fold`, `direct` or `sink` errors the stream.
 */
import { Observable, type OperatorFunction, type Subscriber } from 'rxjs';
import { subscribeLinked } from './subscribeLinked.js';

export interface FoldEachOptions<S, V, R> {
  /** The state before the first value; called at each subscription (cold). */
  readonly seed: () => S;
  /** The next state and the items `value` produced. */
  readonly fold: (state: S, value: V) => { readonly state: S; readonly items: readonly R[] };
  /** The one item of a value that leaves the state as it is, or `undefined` to fold it. */
  readonly direct?: (state: S, value: V) => R | undefined;
  readonly sink: (item: R) => void;
}

export function foldEach<S, V, R>(options: FoldEachOptions<S, V, R>): OperatorFunction<V, never> {
  return (source$) =>
    new Observable<never>((subscriber) => {
      const held: Held<S> = { state: options.seed() };
      subscribeLinked(source$, subscriber, {
        next: (value) => foldValue(held, value, options, subscriber),
        error: (error: unknown) => subscriber.error(error),
        complete: () => subscriber.complete(),
      });
    });
}

/** The state between two values (one literal per subscription). */
interface Held<S> {
  state: S;
}

/**
 * One value: its direct item, or its fold step's items, to the sink. Module-level, not a closure
 * per subscription: V8 keeps a function's optimized code only while an instance of it lives, and
 * this runs once per stream event.
 */
function foldValue<S, V, R>(held: Held<S>, value: V, options: FoldEachOptions<S, V, R>, subscriber: Subscriber<never>): void {
  try {
    const item = options.direct?.(held.state, value);
    if (item !== undefined) return options.sink(item);
    const step = options.fold(held.state, value);
    held.state = step.state;
    const items = step.items;
    for (let i = 0; i < items.length && !subscriber.closed; i++) options.sink(items[i] as R);
  } catch (error) {
    subscriber.error(error);
  }
}
