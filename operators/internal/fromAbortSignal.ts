/**
 * `fromAbortSignal(signal)`: the one bridge from an `AbortSignal` to RxJS, for `takeUntil` and
 * friends. Private to the package (not exported from any entry point).
 */
import { Observable } from 'rxjs';

/**
 * Emits once (with the signal's `reason`) and completes when `signal` aborts; synchronously on
 * subscribe if it already has. Never emits for a signal that never aborts.
 *
 * ```
 * signal:  ------abort
 * result:  ------(r|)
 * ```
 *
 * Why not `fromEvent(signal, 'abort')`: an already-aborted signal never fires its event again,
 * so `fromEvent` would wait forever; and the listener must go on unsubscribe (a long-lived
 * signal shared by many calls would otherwise collect one listener per call).
 */
export function fromAbortSignal(signal: AbortSignal): Observable<unknown> {
  return new Observable<unknown>((subscriber) => {
    const onAbort = () => {
      subscriber.next(signal.reason);
      subscriber.complete();
    };
    if (signal.aborted) {
      onAbort();
      return undefined;
    }
    signal.addEventListener('abort', onAbort, { once: true });
    return () => signal.removeEventListener('abort', onAbort);
  });
}
