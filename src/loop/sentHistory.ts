/**
 * The history as the next request sends it, kept up to date over one run.
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
 */
import type { MessageParam } from '../protocol/content.js';
import { messageBreakpoints } from '../protocol/cacheBreakpoints.js';
import { joinUsers, withoutThinking } from './messages.js';

export interface PreparedHistory {
  /** A fresh array each time: a request keeps it, later requests never change it. */
  readonly messages: readonly MessageParam[];
  /** Cache breakpoints these messages already carry (a caller's own, a resumed history's). */
  readonly breakpoints: number;
}

export interface SentHistory {
  prepare(history: readonly MessageParam[], keepThinking: boolean): PreparedHistory;
}

export function createSentHistory(): SentHistory {
  let source: readonly MessageParam[] = [];
  let keptThinking = false;
  // prepared[j] stands for source[starts[j]] up to the next entry's start (joined users), and
  // holds marks[j] breakpoints.
  const prepared: MessageParam[] = [];
  const starts: number[] = [];
  const marks: number[] = [];
  let breakpoints = 0;

  /** Drops every prepared message built from source[from] or later; returns where to go on. */
  const dropFrom = (from: number): number => {
    let end = source.length;
    while (prepared.length > 0 && end > from) {
      end = starts.pop()!;
      prepared.pop();
      breakpoints -= marks.pop()!;
    }
    return prepared.length === 0 ? 0 : end;
  };

  return {
    prepare(history, keepThinking) {
      const resumeAt = dropFrom(keepThinking === keptThinking ? firstChange(source, history) : 0);
      for (let i = resumeAt; i < history.length; i++) {
        const message = keepThinking ? history[i]! : withoutThinking(history[i]!);
        const last = prepared.length - 1;
        if (last >= 0 && message.role === 'user' && prepared[last]!.role === 'user') {
          prepared[last] = joinUsers(prepared[last]!, message);
          const added = messageBreakpoints(message);
          marks[last] = marks[last]! + added;
          breakpoints += added;
        } else {
          prepared.push(message);
          starts.push(i);
          const added = messageBreakpoints(message);
          marks.push(added);
          breakpoints += added;
        }
      }
      source = history;
      keptThinking = keepThinking;
      return { messages: prepared.slice(), breakpoints };
    },
  };
}

/** The first index where `next` differs from `previous` (slots compared, not messages). */
function firstChange(previous: readonly MessageParam[], next: readonly MessageParam[]): number {
  const shared = Math.min(previous.length, next.length);
  for (let i = 0; i < shared; i++) if (previous[i] !== next[i]) return i;
  return shared;
}
