/**
 * The history as the next request sends it, prepared incrementally over one run.
 *
 * Every request carries the whole history, with consecutive user messages joined, thinking
 * blocks removed when the request has no thinking (SPEC §7), and the cache breakpoints it
 * already holds counted. Done from scratch, that reads every message object of the history on
 * every request: a run of n turns reads n² objects scattered over the heap and makes garbage in
 * proportion (10,000 turns took minutes, most of it cache misses and GC). The history only
 * grows between compactions, so only what was added since the last request is prepared; a
 * history that was rewritten (compaction, snip, a continuation joined into the last message) is
 * prepared again from its first changed message. Finding that message compares array slots,
 * not messages, which stays cheap however long the history is.
 *
 * A `SentHistory` is a value: `prepareHistory` never changes the one it is given, and the
 * loop hands each iteration's on to the next with its `Continue` (events.ts), so the cache is
 * part of the data flowing through `expand`, not a mutable part of the run's context.
 */
import type { MessageParam } from '../protocol/content.js';
import { messageBreakpoints } from '../protocol/cacheBreakpoints.js';
import { joinUsers, withoutThinking } from './messages.js';

export interface SentHistory {
  /** The history these messages were prepared from (its slots are what the next call compares). */
  readonly source: readonly MessageParam[];
  readonly keptThinking: boolean;
  /** A fresh array each time: a request keeps it, later preparation never changes it. */
  readonly messages: readonly MessageParam[];
  /** `messages[j]` stands for `source[starts[j]]` up to the next entry's start (joined users). */
  readonly starts: readonly number[];
  /** Cache breakpoints these messages already carry (a caller's own, a resumed history's). */
  readonly breakpoints: number;
}

/** Nothing sent yet: the first request prepares its whole history. */
export const NOTHING_SENT: SentHistory = { source: [], keptThinking: false, messages: [], starts: [], breakpoints: 0 };

/** `history` as a request sends it, reusing what `previous` prepared of the same slots. */
export function prepareHistory(previous: SentHistory, history: readonly MessageParam[], keepThinking: boolean): SentHistory {
  const from = keepThinking === previous.keptThinking ? firstChange(previous.source, history) : 0;
  // Keep the prepared entries built wholly from slots before `from`; the rest is built again.
  let kept = previous.messages.length;
  let breakpoints = previous.breakpoints;
  let resumeAt = previous.source.length;
  while (kept > 0 && resumeAt > from) {
    kept--;
    resumeAt = previous.starts[kept]!;
    breakpoints -= messageBreakpoints(previous.messages[kept]!);
  }
  if (kept === 0) resumeAt = 0;
  const messages = previous.messages.slice(0, kept);
  const starts = previous.starts.slice(0, kept);
  for (let i = resumeAt; i < history.length; i++) {
    const message = keepThinking ? history[i]! : withoutThinking(history[i]!);
    const last = messages.length - 1;
    if (last >= 0 && message.role === 'user' && messages[last]!.role === 'user') {
      messages[last] = joinUsers(messages[last]!, message);
    } else {
      messages.push(message);
      starts.push(i);
    }
    breakpoints += messageBreakpoints(message);
  }
  return { source: history, keptThinking: keepThinking, messages, starts, breakpoints };
}

/** The first index where `next` differs from `previous` (slots compared, not messages). */
function firstChange(previous: readonly MessageParam[], next: readonly MessageParam[]): number {
  const shared = Math.min(previous.length, next.length);
  for (let i = 0; i < shared; i++) if (previous[i] !== next[i]) return i;
  return shared;
}
