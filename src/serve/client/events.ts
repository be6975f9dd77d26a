/**
 * A session's SSE stream as an Observable of stamped events. EventSource reconnects by itself
 * and sends `Last-Event-ID`, so a dropped connection resumes where it stopped; `connection$`
 * says whether the stream is up, for the status badge.
 */
import { BehaviorSubject, Observable } from 'rxjs';
import type { StampedEvent } from '../../ui/types.js';

export type Connection = 'connecting' | 'open' | 'reconnecting';

export function sessionEvents(url: string): { events$: Observable<StampedEvent>; connection$: Observable<Connection> } {
  const connection$ = new BehaviorSubject<Connection>('connecting');
  const events$ = new Observable<StampedEvent>((subscriber) => {
    const source = new EventSource(url);
    source.onopen = () => connection$.next('open');
    source.onerror = () => connection$.next('reconnecting');
    source.onmessage = (message: MessageEvent<string>) => {
      try {
        subscriber.next(JSON.parse(message.data) as StampedEvent);
      } catch (error) {
        subscriber.error(error);
      }
    };
    return () => source.close();
  });
  return { events$, connection$ };
}
