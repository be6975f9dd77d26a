/**
 * A session's events as Server-Sent Events: `id: <n>` on each, so a client that reconnects with
 * `Last-Event-ID: <n>` (EventSource does it by itself) gets exactly what it missed, then the live
 * stream. A client that goes away only ends its own feed: the run goes on.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Subscription } from 'rxjs';
import type { LoggedEvent, ServeSession } from './session.js';
import { HttpError } from './http.js';

/** Keeps idle connections (and proxies) from timing out. Real I/O, not a test clock. */
const HEARTBEAT_MS = 15_000;

/** The id to resume after: the `Last-Event-ID` header, else `?after=`, else 0 (everything). */
export function resumeIdOf(req: IncomingMessage, query: URLSearchParams): number {
  const raw = (req.headers['last-event-id'] as string | undefined) ?? query.get('after') ?? '0';
  if (!/^\d+$/.test(raw)) throw new HttpError(400, 'invalid_request', `Last-Event-ID must be an event id (a whole number), got '${raw}'`);
  return Number(raw);
}

const frame = (entry: LoggedEvent) => `id: ${entry.id}\ndata: ${JSON.stringify({ at: entry.at, event: entry.event })}\n\n`;

/** Streams the session's events after `afterId` until the client or the server closes. */
export function streamEvents(req: IncomingMessage, res: ServerResponse, session: ServeSession, afterId: number, onClose: (end: () => void) => () => void): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-store',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.write('retry: 1000\n\n');
  const { missed, live$ } = session.events(afterId);
  let lastSent = afterId;
  const send = (entry: LoggedEvent) => {
    if (entry.id <= lastSent) return;
    lastSent = entry.id;
    res.write(frame(entry));
  };
  let ended = false;
  let unregister: () => void = () => undefined;
  let heartbeat: ReturnType<typeof setInterval> | undefined;
  let subscription: Subscription | undefined;
  const end = () => {
    if (ended) return;
    ended = true;
    clearInterval(heartbeat);
    subscription?.unsubscribe();
    unregister();
    res.end();
  };
  missed.forEach(send);
  // Nothing can be logged between the replay above and this subscription (one synchronous step).
  subscription = live$.subscribe({ next: send, complete: end });
  if (ended) return subscription.unsubscribe();
  heartbeat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS);
  unregister = onClose(end);
  req.on('close', end);
}
