/** Fake models for loop marble tests: each call returns the next `cold()` stream of events. */
import type { ColdObservable } from 'rxjs/internal/testing/ColdObservable';
import type { Observable } from 'rxjs';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { StreamEvent } from '../../src/protocol/events.js';
import type { TransportOutput } from '../../src/transport/types.js';
import type { CallModel } from '../../src/loop/options.js';

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

/** Letters for events, in order: `values.a` is the first event, and so on. */
export function lettersFor(events: readonly StreamEvent[]): { letters: string[]; values: Record<string, StreamEvent> } {
  const values: Record<string, StreamEvent> = {};
  const letters = events.map((event, i) => {
    const letter = LETTERS[i]!;
    values[letter] = event;
    return letter;
  });
  return { letters, values };
}

export type ColdFactory = <T>(marbles: string, values?: Record<string, T>, error?: unknown) => ColdObservable<T>;

/** A model whose n-th call plays `streams[n]` (the last one repeats). Records requests. */
export function coldModel(streams: readonly Observable<TransportOutput>[]): { callModel: CallModel; requests: MessagesRequest[] } {
  const requests: MessagesRequest[] = [];
  return {
    requests,
    callModel: (request) => {
      requests.push(request);
      return streams[Math.min(requests.length - 1, streams.length - 1)]!;
    },
  };
}

/**
 * A marble for a response: every event but the last two one frame apart, then `tailMs` of
 * silence, then `message_delta` and `message_stop` together with completion.
 */
export function responseMarble(events: readonly StreamEvent[], tailMs: number): { marble: string; values: Record<string, StreamEvent> } {
  const { letters, values } = lettersFor(events);
  const head = letters.slice(0, -2).join('');
  const tail = letters.slice(-2).join('');
  return { marble: `${head} ${tailMs}ms (${tail}|)`, values };
}

/** All events in one frame, `delayMs` after subscription. */
export function burstMarble(events: readonly StreamEvent[], delayMs = 0): { marble: string; values: Record<string, StreamEvent> } {
  const { letters, values } = lettersFor(events);
  return { marble: `${delayMs > 0 ? `${delayMs}ms ` : ''}(${letters.join('')}|)`, values };
}
