/**
 * One iteration (SPEC §2): `concat(preflight$, modelPhase$, decide$)`. Emits loop events and, as
 * its last item, either the run's `terminal` or a `Continue` for `expand`.
 *
 * ```
 * preflight$:   (i|)                       i iteration_start (budget, abort, transcript, governor)
 * modelPhase$:     -m-m-a-t-r|             the response and its tools, folded
 * decide$:                   (uT c|)       decision (+ hooks), finish: u user_message, T transition
 * iteration:    i  -m-m-a-t-r-(uT c|)
 * ```
 *
 * Data flows one way: the preflight leaves what to send, the model phase's fold leaves the
 * attempt, the decision reads both; nothing flows back. The caller's abort is a stream too
 * (`ctx.aborted$`): the preflight and the decision compose it, the model phase stops on it. The model phase's events (`m`, `a`,
 * `t`, `r` above) are handed to `emit` in the same frames instead of travelling this chain
 * (one per stream event); the order the consumer sees is the one drawn.
 */
import { catchError, concat, defer, EMPTY, from, mergeMap, of, takeWhile, withLatestFrom, type Observable } from 'rxjs';
import type { TextBlock } from '../protocol/content.js';
import type { Tool } from '../tools/types.js';
import { decideAttempt } from './decideAttempt.js';
import { awaitEarly, writingEarly } from './earlyWrites.js';
import { terminal, type Decision } from './decision.js';
import { isContinue, terminalOf, type Continue, type EventSink, type IterationOutput } from './events.js';
import { finish, takesQueuedInput, withQueuedInput, type SettledDecision } from './finish.js';
import { newAttempt, type Attempt } from './foldAttempt.js';
import type { IterationLog } from './iterationLog.js';
import { modelPhase } from './modelPhase.js';
import { preflight } from './preflight.js';
import { asksNoHook, resolveHooks, settleNow } from './resolveHooks.js';
import { toolsOfIteration } from './toolRefresh.js';
import type { RunContext } from './runContext.js';
import type { RunInput } from './runInput.js';
import { TranscriptWriteFailure, writeRecords } from './transcriptWrites.js';

/**
 * `input`: the run's input side (absorbed after a batch, interrupts); `emit`: the loop's output,
 * which the model phase's events go to directly (see `EventSink`).
 */
export function iteration(ctx: RunContext, input: RunInput, from$: Continue, emit: EventSink): Observable<IterationOutput> {
  // The tool set is asked for once, before anything else; without a refresh seam it is fixed
  // (no extra hop per iteration).
  if (!ctx.options.refreshTools) return iterate(ctx, input, from$, ctx.options.tools ?? [], emit);
  return defer(() => toolsOfIteration(ctx.options)).pipe(mergeMap((tools) => iterate(ctx, input, from$, tools, emit)));
}

function iterate(ctx: RunContext, input: RunInput, from$: Continue, tools: readonly Tool[], emit: EventSink): Observable<IterationOutput> {
  return defer(() => {
    const state = from$.state;
    input.tracking = { chainId: state.chainId, depth: state.depth };
    const log: IterationLog = {
      latest: newAttempt(state),
      sent: state.messages,
      prepared: from$.sent,
      written: state.messages,
      pending: from$.records,
      error: undefined,
      interrupted: false,
      recovered: false,
      compactFailure: undefined,
      early: undefined,
      writtenEarly: new Set(),
      lifecycle: [],
    };
    const absorb = (): readonly TextBlock[] => {
      const { content, events } = input.absorb();
      log.lifecycle.push(...events);
      return content;
    };
    // The hooks are effects inside the decision stream; the abort state beside them is a
    // stream too, subscribed before they run, so an abort while a hook runs is seen.
    // A decision that asks no hook (most of them) settles at once: the abort state
    // `withLatestFrom` would pair it with is the one of that moment, read directly. Called at
    // the moment the decision's stream is subscribed.
    const settledNow = (attempt: Attempt, decision: SettledDecision): Observable<IterationOutput> =>
      ended(ctx, log, settle(ctx, input, log, settleNow(ctx, attempt, decision, absorb), ctx.isAborted(), absorb));
    const end = (decision: Decision): Observable<IterationOutput> => {
      const attempt = log.latest;
      if (asksNoHook(decision)) return defer(() => settledNow(attempt, decision));
      return resolveHooks(ctx, attempt, decision, absorb).pipe(
        withLatestFrom(ctx.aborted$),
        mergeMap(([settled, aborted]) => ended(ctx, log, settle(ctx, input, log, settled, aborted, absorb))),
      );
    };
    // The abort state when the model phase is over (`aborted$`'s first value, read directly).
    const decide$ = defer(() => {
      const aborted = ctx.isAborted();
      if (log.recovered && !aborted && !log.interrupted) return EMPTY;
      const ending = { aborted, interrupted: log.interrupted ? { queued: absorb() } : undefined, error: log.error, compactFailure: log.compactFailure };
      const decision = decideAttempt(log.latest, ending, ctx.decideConfig);
      // Already subscribed: no second `defer` for the usual decision.
      return asksNoHook(decision) ? settledNow(log.latest, decision) : end(decision);
    });
    const sink = ctx.transcript ? writingEarly(ctx, ctx.transcript, log, emit) : emit;
    // Only a transcript's sink starts early writes (`log.early`): without one there is none to await.
    const early$ = ctx.transcript ? [awaitEarly(log)] : [];
    return concat(preflight(ctx, log, end), modelPhase(ctx, input, log, tools, sink), ...early$, decide$).pipe(
      // A terminal (from any phase) ends the iteration; the phases after it never subscribe.
      takeWhile((out) => out.type !== 'terminal', true),
      catchError((error: unknown) => concat(unwritten(ctx, log, error), of(setupFailure(ctx, log, error)))),
    );
  });
}

/** The decision with what happened to the run meanwhile: input queued at the end, an abort. */
function settle(ctx: RunContext, input: RunInput, log: IterationLog, decision: SettledDecision, aborted: boolean, absorb: () => readonly TextBlock[]): SettledDecision {
  // Input submitted while the turn was ending is not dropped: it starts the next turn.
  if (!aborted && input.state().queue.length > 0 && takesQueuedInput(decision)) {
    return withQueuedInput(log.latest.state, decision, [...absorb()], ctx.newId(), ctx.decideConfig.maxTurns);
  }
  // A continue decided after an abort (e.g. while a hook ran) still ends the run aborted.
  if (decision.type === 'continue' && aborted) return terminal('aborted_tools', { additions: decision.additions }) as SettledDecision;
  return decision;
}

/** The finished iteration: its events, then the continue, or the records written and the terminal. */
function ended(ctx: RunContext, log: IterationLog, decision: SettledDecision): Observable<IterationOutput> {
  const done = finish(log.latest.state, decision, { now: ctx.now(), startedAt: ctx.startedAt, pending: log.pending, recording: ctx.transcript !== undefined, writtenEarly: log.writtenEarly, sent: log.prepared });
  log.pending = [];
  const events = [...log.lifecycle.splice(0), ...done.events];
  if (isContinue(done.end)) return from<IterationOutput[]>([...events, done.end]);
  const terminalEvent = done.end;
  // Submitted input is settled by the loop right before the terminal is delivered, after the
  // records are written: input arriving during the write is reported, not lost.
  return concat(from(events), defer(() => ((log.written = done.messages), writeRecords(ctx.transcript, done.records))), of(terminalEvent));
}

/**
 * Records still held when preparing the request failed (a paused turn's, see pausedRecord.ts)
 * are written before the setup failure's terminal; not when the failure was that very write.
 */
function unwritten(ctx: RunContext, log: IterationLog, error: unknown): Observable<never> {
  const pending = log.pending;
  log.pending = [];
  if (error instanceof TranscriptWriteFailure) return EMPTY;
  return writeRecords(ctx.transcript, pending).pipe(catchError(() => EMPTY));
}

/**
 * Preparing a request can fail outside the model call: a transcript that cannot be written
 * (disk full, permissions: going on would leave work the user believes saved unsaved), or a
 * context governor or hook that throws. The run then ends with `turn_setup_failed` and the
 * cause, never with an Observable error that would leave consumers without a terminal.
 */
function setupFailure(ctx: RunContext, log: IterationLog, error: unknown): IterationOutput {
  const transcript = error instanceof TranscriptWriteFailure;
  const cause = transcript ? error.cause : error;
  const detail = cause instanceof Error ? cause.message : String(cause);
  return terminalOf(log.latest.state, ctx.now() - ctx.startedAt, {
    reason: 'turn_setup_failed',
    error: transcript ? { kind: 'session', message: `could not write the session transcript: ${detail}` } : { kind: 'internal', message: `preparing the next request failed: ${detail}` },
    messages: log.written,
  });
}
