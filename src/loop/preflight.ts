/**
 * Before the model call (SPEC §2 steps 1-3): the abort (a stream, `ctx.aborted$`) and budget checks, `iteration_start`,
 * the pending transcript records written (a paused turn's held back), then the context governor's decision. Ends the
 * iteration with a terminal, or leaves `log.sent` (and a compacted `log.latest.state`) for the
 * model phase.
 */
import { concat, defer, from, mergeMap, Observable, of, take } from 'rxjs';
import { assertNever } from '../util/assertNever.js';
import { terminal, type Decision } from './decision.js';
import { eventOf, iterationStartEvent, warningEvent, type IterationOutput } from './events.js';
import { newAttempt } from './foldAttempt.js';
import { holdPaused } from './pausedRecord.js';
import type { IterationLog } from './iterationLog.js';
import type { RunContext } from './runContext.js';
import { passThroughGovernor, type CompactBoundary, type GovernorNotice, type TranscriptRecord } from './seams.js';
import { stateWith } from './stateWith.js';
import { writeRecords } from './transcriptWrites.js';
import type { LoopEvent, LoopState } from './types.js';

export function preflight(ctx: RunContext, log: IterationLog, end: (decision: Decision) => Observable<IterationOutput>): Observable<IterationOutput> {
  // An aborted run sends nothing more: the abort state as the iteration starts decides.
  // Its first value only, read when the iteration subscribes (no `aborted$` subscription).
  return defer(() => (ctx.isAborted() ? end(terminal('aborted_streaming')) : prepare(ctx, log, end)));
}

/** Called as the preflight is subscribed (inside its `defer`). */
function prepare(ctx: RunContext, log: IterationLog, end: (decision: Decision) => Observable<IterationOutput>): Observable<IterationOutput> {
  const state = log.latest.state;
  if (ctx.budget?.exhausted()) {
    const spent = ctx.budget.spentUsd().toFixed(4);
    return end(terminal('budget_exhausted', { error: { kind: 'internal', message: `the cost budget of $${ctx.budget.maxUsd} is spent ($${spent})` } }));
  }
  const start = iterationStartEvent(state);
  // Deferred: the governor runs after the transcript write, and a governor that throws
  // synchronously ends the run like one that errors (a setup failure).
  const governed$ = defer(() => ctx.governor.beforeCall(governorInput(ctx, state))).pipe(
    take(1),
    mergeMap((decision): Observable<IterationOutput> => {
      const notices = noticeEvents(state, decision.notices);
      switch (decision.type) {
        case 'ok':
          log.sent = decision.messages;
          return from(notices);
        case 'compacted': {
          const messages = [...decision.messages];
          const compacted = stateWith(state);
          compacted.messages = messages;
          compacted.lastMessageUuid = undefined;
          compacted.lastUsage = undefined;
          compacted.lastUsageCovers = 0;
          log.latest = newAttempt(compacted);
          log.sent = messages;
          const record = boundaryRecord(ctx, state, decision.boundary, messages);
          // A held paused record goes first: the compacted view has nothing to join it to.
          const held = log.pending;
          log.pending = [];
          return concat(from([...notices, eventOf(state, { type: 'compact_boundary', ...decision.boundary })]), write(ctx, log, [...held, record], messages));
        }
        case 'blocking_limit':
        case 'rapid_refill_breaker':
          return concat(from(notices), end(terminal(decision.type, { error: { kind: 'internal', message: decision.message } })));
        default:
          return assertNever(decision, 'governor decision');
      }
    }),
  );
  // A paused turn's record waits for its continuation (one record per message, pausedRecord.ts).
  const { write: now, held } = holdPaused(state, log.pending);
  log.pending = held;
  if (ctx.governor === passThroughGovernor && (ctx.transcript === undefined || now.length === 0)) return passedThrough(log, start, state);
  return concat(of(start), write(ctx, log, now, state.messages), governed$);
}

/**
 * The preflight's end when nothing in it can wait: no records to write and the default governor,
 * whose answer is `ok` with the history as it is. The same steps as the general path in the same
 * order (the start event, the write's `log.written`, the governor's `log.sent`), in one
 * subscriber instead of the dozen that path subscribes every iteration; a consumer that
 * unsubscribes at the start event stops it there, as it stops the `concat`.
 */
function passedThrough(log: IterationLog, start: LoopEvent, state: LoopState): Observable<IterationOutput> {
  return new Observable<IterationOutput>((subscriber) => {
    subscriber.next(start);
    if (subscriber.closed) return;
    log.written = state.messages;
    log.sent = state.messages;
    subscriber.complete();
  });
}

function write(ctx: RunContext, log: IterationLog, records: readonly TranscriptRecord[], messages: LoopState['messages']): Observable<never> {
  return defer(() => {
    log.written = messages;
    return writeRecords(ctx.transcript, records);
  });
}

/** What the governor sees of the current state, before a call and for reactive compaction. */
export function governorInput(ctx: RunContext, state: LoopState) {
  return {
    chainId: state.chainId,
    depth: state.depth,
    messages: state.messages,
    model: state.model,
    maxOutputTokens: ctx.maxOutputTokens,
    lastUsage: state.lastUsage,
    messagesSinceUsage: state.lastUsageCovers,
    signal: ctx.signal,
  };
}

/** A compaction's transcript record (the loop keeps the full history; the record the view). */
export function boundaryRecord(ctx: RunContext, state: LoopState, boundary: CompactBoundary, messages: LoopState['messages']): TranscriptRecord {
  return { type: 'compact_boundary', chainId: state.chainId, depth: state.depth, timestamp: ctx.now(), boundary, messages };
}

/**
 * What the governor did besides its decision, as events, in its order. Snip/microcompact
 * boundaries are not transcript records: the loop keeps the full history and the governor
 * derives the same view from it again on every call (after a resume too), while a record
 * would copy the whole view into the transcript at each boundary.
 */
export function noticeEvents(state: LoopState, notices: readonly GovernorNotice[] | undefined): LoopEvent[] {
  return (notices ?? []).map((notice) => {
    switch (notice.type) {
      case 'compact_boundary':
        return eventOf(state, { type: 'compact_boundary', ...notice.boundary });
      case 'warning':
        return warningEvent(state, notice.message, notice.code);
      default:
        return assertNever(notice, 'governor notice');
    }
  });
}
