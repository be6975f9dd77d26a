/**
 * The decision logic of `scheduleTools` (SPEC §4 "Scheduling" and "Interrupts"), free of RxJS
 * and of I/O: `stepScheduler(state, input)` applies one input and answers the commands the
 * operator shell carries out (start or stop a call, emit an event, finish).
 *
 * Deterministic, with no I/O and no user code, so every rule is a table-driven test. It updates
 * `state` in place instead of returning a copy: a batch may hold thousands of calls and copying
 * it per event would make a batch quadratic. Callers own the state object and never share it.
 *
 * Invariants that keep each step O(1) amortized:
 * - calls start strictly in tool_use order (a call that cannot start blocks every later one),
 *   so "the next call to consider" is a cursor, never a scan;
 * - the counters (running, running unsafe, running 'block', done) mirror the call statuses.
 */
import type { StopReason, ToolResultBlock } from '../protocol/content.js';
import { assertNever } from '../util/assertNever.js';
import type { ClassifiedCall } from './classifyCall.js';
import {
  batchTimeoutText,
  cancelledText,
  interruptedText,
  modelStreamFailedText,
  notStartedInterruptedText,
  truncatedCallText,
  truncatedStartedCallText,
} from './errorTexts.js';
import type { StopContinuation } from './hooks.js';
import { errorResult } from './runToolCall.js';
import type { SharedContext, ToolEvent } from './types.js';

type ToolResultEvent = Extract<ToolEvent, { type: 'tool_result' }>;
type ToolBatchEvent = Extract<ToolEvent, { type: 'tool_batch' }>;
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** One call of the batch as the scheduler tracks it (mutable: owned by one scheduler state). */
export interface ScheduledCall {
  /** Unique within one subscription, across stream retries (late events are matched by it). */
  readonly key: number;
  readonly classified: ClassifiedCall;
  readonly blockIndex: number;
  status: 'queued' | 'running' | 'done';
  startedAt: number | undefined;
  result: ToolResultBlock | undefined;
  endsTurn: boolean;
  additionalContext: readonly string[] | undefined;
  stopContinuation: StopContinuation | undefined;
  /** A PreToolUse hook deferred the call and the deferral was accepted (the call did not run). */
  deferred: { readonly reason?: string } | undefined;
}

/** Why no new call may start any more. */
export type SchedulerMode = 'open' | 'interrupted' | 'aborted' | 'timed_out' | 'failed' | 'finished';

/** The scheduler's whole state for one batch; updated in place by `stepScheduler` (see the file head for why). */
export interface SchedulerState {
  readonly initialShared: SharedContext;
  shared: SharedContext;
  /** The calls of the current attempt, in tool_use order. */
  calls: ScheduledCall[];
  /** Key of `calls[0]`. */
  baseKey: number;
  nextKey: number;
  /** Index of the first call not yet started or settled. */
  cursor: number;
  running: number;
  runningUnsafe: number;
  runningBlock: number;
  done: number;
  /** Highest content block index opened so far. */
  lastBlockIndex: number;
  /** No more blocks will come (message_delta, message, or the source ended). */
  modelDone: boolean;
  truncationChecked: boolean;
  sourceComplete: boolean;
  mode: SchedulerMode;
  interruptible: boolean;
  batchTimerArmed: boolean;
}

/** What the operator shell feeds `stepScheduler`: model stream facts and call completions. */
export type SchedulerInput =
  | { readonly type: 'tool_use'; readonly call: ClassifiedCall; readonly blockIndex: number }
  /** The model opened a block: every earlier call is complete ("the model has moved on"). */
  | { readonly type: 'block_start'; readonly index: number }
  | { readonly type: 'model_done'; readonly stopReason: StopReason | null }
  | { readonly type: 'source_complete' }
  | { readonly type: 'source_error'; readonly error: unknown }
  /** The attempt is void (transport retry): forget its calls, a fresh message follows. */
  | { readonly type: 'stream_retry' }
  | { readonly type: 'tool_event'; readonly key: number; readonly event: ToolEvent; readonly sharedAfter?: SharedContext }
  | { readonly type: 'interrupt' }
  | { readonly type: 'abort' }
  | { readonly type: 'batch_timeout'; readonly timeoutMs: number };

/** What `stepScheduler` asks the operator shell to do, in order. */
export type SchedulerCommand =
  | { readonly type: 'start'; readonly call: ScheduledCall; readonly shared: SharedContext }
  /** Unsubscribe the call (a no-op if it already completed). */
  | { readonly type: 'stop'; readonly key: number }
  | { readonly type: 'emit'; readonly event: ToolEvent }
  | { readonly type: 'arm_batch_timeout' }
  | { readonly type: 'interruptible'; readonly value: boolean }
  | { readonly type: 'complete' }
  | { readonly type: 'error'; readonly error: unknown };

// The commands without a payload are shared constants (the shell only reads them): one
// allocation less each per batch, whose cost after a full GC is mostly its garbage (issue 20 §2).
const ARM_BATCH_TIMEOUT: SchedulerCommand = Object.freeze({ type: 'arm_batch_timeout' });
const COMPLETE: SchedulerCommand = Object.freeze({ type: 'complete' });

/** A fresh state for one batch, starting from `shared`. */
export function createSchedulerState(shared: SharedContext): SchedulerState {
  return {
    initialShared: shared,
    shared,
    calls: [],
    baseKey: 0,
    nextKey: 0,
    cursor: 0,
    running: 0,
    runningUnsafe: 0,
    runningBlock: 0,
    done: 0,
    lastBlockIndex: -1,
    modelDone: false,
    truncationChecked: false,
    sourceComplete: false,
    mode: 'open',
    interruptible: true,
    batchTimerArmed: false,
  };
}

/**
 * Applies one input; `now` stamps durations of synthetic results. The commands are appended to
 * `commands` (a fresh array when not given) and it is returned: the operator shell passes one
 * array it empties before each step, because an array per step was a sizeable share of a
 * one-tool batch's garbage (issue 20 §2). The reducer only ever appends to it.
 */
export function stepScheduler(
  state: SchedulerState,
  input: SchedulerInput,
  now: number,
  commands: SchedulerCommand[] = [],
): SchedulerCommand[] {
  if (state.mode === 'finished') return commands;
  switch (input.type) {
    case 'tool_use':
      onToolUse(state, input.call, input.blockIndex, now, commands);
      break;
    case 'block_start':
      state.lastBlockIndex = Math.max(state.lastBlockIndex, input.index);
      break;
    case 'model_done':
      state.modelDone = true;
      if (input.stopReason === 'max_tokens') settleTruncated(state, now, commands);
      break;
    case 'source_complete':
      state.sourceComplete = true;
      state.modelDone = true;
      break;
    case 'source_error':
      settleAllUnfinished(state, now, commands, modelStreamFailedText);
      state.mode = 'failed';
      emitBatch(state, commands);
      commands.push({ type: 'error', error: input.error });
      state.mode = 'finished';
      return commands;
    case 'stream_retry':
      resetAttempt(state, commands);
      break;
    case 'tool_event':
      onToolEvent(state, input.key, input.event, input.sharedAfter, commands);
      break;
    case 'interrupt':
      if (state.mode === 'open') interrupt(state, now, commands);
      break;
    case 'abort':
      if (state.mode === 'open' || state.mode === 'interrupted') {
        state.mode = 'aborted';
        settleAllUnfinished(state, now, commands, cancelledText);
      }
      break;
    case 'batch_timeout':
      if (state.mode === 'open' || state.mode === 'interrupted') {
        state.mode = 'timed_out';
        settleAllUnfinished(state, now, commands, (name) => batchTimeoutText(name, input.timeoutMs));
      }
      break;
    default:
      assertNever(input, 'scheduler input');
  }
  startWhatMay(state, now, commands);
  updateInterruptible(state, commands);
  finishIfDone(state, commands);
  return commands;
}

/**
 * Whether `stepScheduler(state, input, now)` may read `now`: only a step that starts or settles
 * a call does (a start time, a synthetic result's duration), and with no call pending only a
 * new tool_use can. Pure; the shell skips the clock (~0.1 µs a read) for the other steps, e.g.
 * the message_delta and the end of the source after a one-tool batch's call finished.
 */
export function stepReadsClock(state: SchedulerState, input: SchedulerInput): boolean {
  return input.type === 'tool_use' || hasPendingCalls(state);
}

/** True while the scheduler holds calls that have no result yet. */
export function hasPendingCalls(state: SchedulerState): boolean {
  return state.done < state.calls.length;
}

function onToolUse(state: SchedulerState, classified: ClassifiedCall, blockIndex: number, now: number, commands: SchedulerCommand[]): void {
  const call: ScheduledCall = {
    key: state.nextKey++,
    classified,
    blockIndex,
    status: 'queued',
    startedAt: undefined,
    result: undefined,
    endsTurn: false,
    additionalContext: undefined,
    stopContinuation: undefined,
    deferred: undefined,
  };
  // The first call makes the array as a literal of one: pushing into `[]` reserves 17 slots.
  if (state.calls.length === 0) state.calls = [call];
  else state.calls.push(call);
  state.lastBlockIndex = Math.max(state.lastBlockIndex, blockIndex);
  if (!state.batchTimerArmed) {
    state.batchTimerArmed = true;
    commands.push(ARM_BATCH_TIMEOUT);
  }
  if (state.mode !== 'open') {
    // The user interrupted (or the batch was stopped) before this call arrived: never run it.
    const text = state.mode === 'interrupted' ? notStartedInterruptedText : cancelledText;
    settle(state, call, errorResult(call.classified.block.id, text(call.classified.block.name)), now, commands);
  }
}

/** The scheduling rules of SPEC §4, applied from the cursor in tool_use order. */
function startWhatMay(state: SchedulerState, now: number, commands: SchedulerCommand[]): void {
  if (state.mode !== 'open') return;
  while (state.cursor < state.calls.length) {
    const call = state.calls[state.cursor]!;
    if (call.status !== 'queued') {
      state.cursor++;
      continue;
    }
    if (call.classified.concurrencySafe) {
      // A safe call joins only a set of safe calls.
      if (state.runningUnsafe > 0) return;
    } else {
      // An unsafe call runs alone, and only once its input is surely complete: the model has
      // opened a later block or finished. Until then it is a barrier for every later call.
      if (state.running > 0 || !movedOnPast(state, call)) return;
    }
    start(state, call, now, commands);
    state.cursor++;
  }
}

function movedOnPast(state: SchedulerState, call: ScheduledCall): boolean {
  return state.modelDone || state.lastBlockIndex > call.blockIndex;
}

function start(state: SchedulerState, call: ScheduledCall, now: number, commands: SchedulerCommand[]): void {
  call.status = 'running';
  call.startedAt = now;
  state.running++;
  if (!call.classified.concurrencySafe) state.runningUnsafe++;
  if (call.classified.interruptBehavior === 'block') state.runningBlock++;
  commands.push({ type: 'start', call, shared: state.shared });
}

function onToolEvent(
  state: SchedulerState,
  key: number,
  event: ToolEvent,
  sharedAfter: SharedContext | undefined,
  commands: SchedulerCommand[],
): void {
  const call = state.calls[key - state.baseKey];
  // Late events of a call that was stopped (or of a voided attempt) are dropped.
  if (!call || call.key !== key || call.status !== 'running') return;
  switch (event.type) {
    case 'tool_start':
    case 'tool_progress':
      commands.push({ type: 'emit', event });
      return;
    case 'tool_result':
      // Only unsafe calls change the shared context; they run alone and in order.
      if (!call.classified.concurrencySafe && sharedAfter !== undefined) state.shared = sharedAfter;
      finishCall(state, call, event, commands);
      commands.push({ type: 'stop', key });
      return;
    case 'tool_batch':
      return; // runToolCall never emits batches
    default:
      assertNever(event, 'tool event');
  }
}

function finishCall(state: SchedulerState, call: ScheduledCall, event: ToolResultEvent, commands: SchedulerCommand[]): void {
  if (call.status === 'running') {
    state.running--;
    if (!call.classified.concurrencySafe) state.runningUnsafe--;
    if (call.classified.interruptBehavior === 'block') state.runningBlock--;
  }
  call.status = 'done';
  call.result = event.result;
  call.endsTurn = event.endsTurn;
  call.additionalContext = event.additionalContext;
  call.stopContinuation = event.stopContinuation;
  call.deferred =
    event.deferral?.accepted === true ? (event.deferral.reason !== undefined ? { reason: event.deferral.reason } : {}) : undefined;
  state.done++;
  commands.push({ type: 'emit', event });
}

/** A synthetic result for a call that was not (or not fully) run. */
function settle(state: SchedulerState, call: ScheduledCall, result: ToolResultBlock, now: number, commands: SchedulerCommand[]): void {
  const wasRunning = call.status === 'running';
  const { id, name } = call.classified.block;
  finishCall(
    state,
    call,
    { type: 'tool_result', toolUseId: id, name, result, endsTurn: false, durationMs: wasRunning ? now - (call.startedAt ?? now) : 0 },
    commands,
  );
  if (wasRunning) commands.push({ type: 'stop', key: call.key });
}

function settleAllUnfinished(
  state: SchedulerState,
  now: number,
  commands: SchedulerCommand[],
  text: (name: string) => string,
): void {
  for (const call of state.calls) {
    if (call.status === 'done') continue;
    settle(state, call, errorResult(call.classified.block.id, text(call.classified.block.name)), now, commands);
  }
}

/**
 * max_tokens: the call in the last block was cut off by the output limit. Unless it already
 * finished (a safe call that started at its own block stop), it is not run / stopped.
 */
function settleTruncated(state: SchedulerState, now: number, commands: SchedulerCommand[]): void {
  if (state.truncationChecked) return;
  state.truncationChecked = true;
  const last = state.calls[state.calls.length - 1];
  if (!last || last.status === 'done' || last.blockIndex < state.lastBlockIndex) return;
  const { id, name } = last.classified.block;
  // A running call may already have acted (written a file, started a subagent): do not claim it did not run.
  const text = last.status === 'running' ? truncatedStartedCallText(name) : truncatedCallText(name);
  settle(state, last, errorResult(id, text), now, commands);
}

function interrupt(state: SchedulerState, now: number, commands: SchedulerCommand[]): void {
  state.mode = 'interrupted';
  for (const call of state.calls) {
    if (call.status === 'done') continue;
    const { id, name } = call.classified.block;
    if (call.status === 'queued') {
      settle(state, call, errorResult(id, notStartedInterruptedText(name)), now, commands);
    } else if (call.classified.interruptBehavior === 'cancel') {
      settle(state, call, errorResult(id, interruptedText(name)), now, commands);
    }
    // 'block' calls run to completion.
  }
}

function resetAttempt(state: SchedulerState, commands: SchedulerCommand[]): void {
  for (const call of state.calls) if (call.status === 'running') commands.push({ type: 'stop', key: call.key });
  state.baseKey = state.nextKey;
  state.calls = [];
  state.cursor = 0;
  state.running = 0;
  state.runningUnsafe = 0;
  state.runningBlock = 0;
  state.done = 0;
  state.lastBlockIndex = -1;
  state.modelDone = false;
  state.truncationChecked = false;
  // Context changes of the voided attempt's calls are dropped with their tool_use blocks.
  state.shared = state.initialShared;
}

function updateInterruptible(state: SchedulerState, commands: SchedulerCommand[]): void {
  // Once interrupted, aborted or finished the question is moot: report nothing more.
  if (state.mode !== 'open') return;
  const value = state.runningBlock === 0;
  if (value !== state.interruptible) {
    state.interruptible = value;
    commands.push({ type: 'interruptible', value });
  }
}

function finishIfDone(state: SchedulerState, commands: SchedulerCommand[]): void {
  if (state.mode === 'finished' || hasPendingCalls(state)) return;
  // Normally the batch ends with the response; once stopped it ends as soon as nothing runs.
  if (state.mode === 'open' && !state.sourceComplete) return;
  emitBatch(state, commands);
  commands.push(COMPLETE);
  state.mode = 'finished';
}

function emitBatch(state: SchedulerState, commands: SchedulerCommand[]): void {
  if (state.calls.length === 0) return;
  // `map` allocates the exact length; pushing into `[]` allocated room for 17.
  const results: ToolResultBlock[] = state.calls.map(resultOf);
  let additionalContext: { toolUseId: string; text: string }[] | undefined;
  let endsTurn = false;
  let stopContinuation: StopContinuation | undefined;
  let deferred: { readonly toolUseId: string; readonly reason?: string } | undefined;
  for (const call of state.calls) {
    const { id } = call.classified.block;
    endsTurn ||= call.endsTurn;
    stopContinuation ??= call.stopContinuation;
    if (call.deferred && !deferred) deferred = { toolUseId: id, ...call.deferred };
    if (call.additionalContext) for (const text of call.additionalContext) (additionalContext ??= []).push({ toolUseId: id, text });
  }
  // Optional fields assigned in place (in the order the type lists them), not spread: a
  // conditional spread allocates per field, and garbage is a one-tool batch's main cost.
  const event: Mutable<ToolBatchEvent> = { type: 'tool_batch', results, endsTurn, shared: state.shared };
  if (stopContinuation) event.stopContinuation = stopContinuation;
  if (additionalContext) event.additionalContext = additionalContext;
  if (deferred) event.deferred = deferred;
  commands.push({ type: 'emit', event });
}

function resultOf(call: ScheduledCall): ToolResultBlock {
  return call.result ?? errorResult(call.classified.block.id, cancelledText(call.classified.block.name));
}
