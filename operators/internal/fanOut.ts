/**
 * `fanOut()`: a hot stream its owner pushes into, for the few readers of one response (the tool
 * scheduler reading what `interleaveTools` passes on). Private to the package.
 *
 * A `Subject` does the same job, but RxJS 7's build for Node is ES5: each `Subject.next` allocates
 * a closure, an iterator and its result objects. On the streaming path that is paid per stream
 * event; here a push is a plain loop over the current readers (copied on subscribe and
 * unsubscribe, so a reader leaving or joining mid-push does not disturb the push). As with a
 * Subject, a reader that subscribes after the end gets the end at once.
 */
import { Observable, type Subscriber } from 'rxjs';

export interface FanOut<T> {
  /** What readers subscribe to. */
  readonly observable: Observable<T>;
  next(value: T): void;
  error(error: unknown): void;
  complete(): void;
}

type End = { readonly failed: false } | { readonly failed: true; readonly error: unknown };

export function fanOut<T>(): FanOut<T> {
  let readers: readonly Subscriber<T>[] = [];
  let end: End | undefined;
  const finish = (how: End): void => {
    if (end) return;
    end = how;
    const current = readers;
    readers = [];
    for (const reader of current) {
      if (how.failed) reader.error(how.error);
      else reader.complete();
    }
  };
  return {
    observable: new Observable<T>((subscriber) => {
      if (end) return end.failed ? subscriber.error(end.error) : subscriber.complete();
      readers = [...readers, subscriber];
      return () => {
        readers = readers.filter((reader) => reader !== subscriber);
      };
    }),
    next(value) {
      if (end) return;
      const current = readers;
      for (let i = 0; i < current.length; i++) (current[i] as Subscriber<T>).next(value);
    },
    error: (error) => finish({ failed: true, error }),
    complete: () => finish({ failed: false }),
  };
}
