/**
 * The tool scheduler of one model response: a thin RxJS shell over the pure decisions of
 * `stepScheduler` (src/tools/schedulerState.ts) and the per-call pipeline `runToolCall`.
 */
import {
  asyncScheduler,
  Observable,
  Subscriber,
  timer,
  type Observer,
  type OperatorFunction,
  type SchedulerLike,
  type Subscription,
} from 'rxjs';
import type { AssemblyOutput } from '../src/assembly/types.js';
import { classifyCall } from '../src/tools/classifyCall.js';
import { errorMessage } from '../src/tools/errorTexts.js';
import type { CanUseTool, ToolHooks } from '../src/tools/hooks.js';
import { toRegistry, type ToolRegistry } from '../src/tools/registry.js';
import { runToolCall, type PipelineTraceEntry } from '../src/tools/runToolCall.js';
import {
  createSchedulerState,
  stepScheduler,
  type SchedulerCommand,
  type SchedulerInput,
  type SchedulerState,
} from '../src/tools/schedulerState.js';
import type { SharedContext, Tool, ToolEvent } from '../src/tools/types.js';
import { assertNever } from '../src/util/assertNever.js';
import { subscribeLinked } from './internal/subscribeLinked.js';

/** Options of {@link scheduleTools}: the tools, the shared context, the seams and the limits of one batch. */
export interface ScheduleToolsOptions {
  /** The tool set of this iteration (an array is indexed once and cached). */
  readonly tools: readonly Tool[] | ToolRegistry;
  /** The shared context at the start of the batch. */
  readonly shared: SharedContext;
  readonly hooks?: ToolHooks;
  readonly canUseTool?: CanUseTool;
  /**
   * The user interrupted. 'cancel' calls that run get an "interrupted by the user" result,
   * 'block' calls run to completion, calls not started get a "not run" result, and calls that
   * arrive later are not run. The batch then ends as soon as nothing runs (without waiting for
   * the model). Forward a new submission here only while `onInterruptibleChange` said true.
   */
  readonly interrupt$?: Observable<unknown>;
  /**
   * Stop everything now: every call without a result (running ones included, 'block' or not)
   * gets a cancellation result, then the batch is emitted and the Observable completes.
   * Plain unsubscription also stops everything, but can deliver nothing.
   */
  readonly abort$?: Observable<unknown>;
  /** Default time limit of one call (a tool's own `timeoutMs` wins). Default: none. */
  readonly timeoutMs?: number;
  /**
   * Limit for the whole batch, from the first tool_use received: what has no result by then
   * gets a timeout result and the batch ends. Default: none.
   */
  readonly batchTimeoutMs?: number;
  /** Timers and durations. Default `asyncScheduler` (virtual inside `TestScheduler.run`). */
  readonly scheduler?: SchedulerLike;
  /** Sees every pipeline step of every call (tests, debugging). */
  readonly trace?: (entry: PipelineTraceEntry) => void;
  /**
   * Called when the batch turns (non-)interruptible: true only while every running call is
   * 'cancel' (SPEC §4 "Interrupts"). Assume true until told otherwise. If it throws, the
   * output errors with what it threw (running calls are stopped).
   */
  readonly onInterruptibleChange?: (interruptible: boolean) => void;
  /**
   * Honour a PreToolUse 'defer' when the response holds exactly one tool call (known once the
   * model is done; a hook answering 'defer' earlier waits for that). Off (interactive runs):
   * 'defer' is ignored. Default false.
   */
  readonly allowDefer?: boolean;
}

/**
 * Runs the tool calls of one model response while it streams, and ends with their batch.
 *
 * <span class="informal">Tools start the moment their block closes; the batch comes out in
 * tool_use order anyway.</span>
 *
 * Input: the `assembleBlocks()` stream of ONE response. Output:
 * - `tool_start`, `tool_progress`, `tool_result` the moment they exist (completion order);
 * - last, one `tool_batch` with one result per tool_use, in tool_use order (no batch when the
 *   response had no tool_use), then completion.
 *
 * Rules (SPEC §4): a concurrency-safe call starts at its own `content_block_stop` if nothing
 * unsafe runs; an unsafe call starts when nothing runs AND the model has moved on (a later
 * `block_start`, a `message_delta`, the message, or the end of the source), and until then it
 * is a barrier for every later call. Context changes are merged only from unsafe calls, in
 * order. With `stop_reason: max_tokens` the call in the last block was cut off: it is not run
 * (or stopped) and gets a result asking to split the work. A `stream_retry` voids the attempt:
 * its running calls are stopped and forgotten, and the shared context is reset.
 *
 * ```
 * source:      -a-b---B-(m|)     a, b: safe tool_use blocks; B: block_start; m: message
 * a.call:       ---(x|)          (subscribed at frame 1, at a's block stop)
 * b.call:         -----(y|)      (subscribed at frame 3, while a still runs)
 * output:      -s-sx---y(T|)     s: tool_start  x, y: tool_result  T: tool_batch [a, b]
 * ```
 *
 * The model stream failing (source error): running calls are stopped, every tool_use without
 * a result gets an error result saying the response failed, the `tool_batch` is emitted (so the
 * history stays valid), and then the source's error is re-emitted unchanged.
 *
 * Unsubscribing stops every running call (their `ctx.signal` aborts) and delivers nothing.
 *
 * __Warning:__ the results of a batch are held until it ends (they form the `tool_batch`).
 *
 * @see runToolCall for what happens to one call.
 */
export function scheduleTools(options: ScheduleToolsOptions): OperatorFunction<AssemblyOutput, ToolEvent> {
  // One `new Observable` listening to its drivers directly: a real turn's batch has one or two
  // calls, so the batch's fixed cost is what it pays. Built from Subjects, merge, takeUntil and
  // finalize, that shell allocated ~22 KB per batch (of ~34 KB), and after a full GC its
  // scavenges made a one-tool batch cost 5x its steady time (issue 20 §2).
  return (source$) =>
    new Observable<ToolEvent>((output) => {
      const registry = toRegistry(options.tools);
      const scheduler = options.scheduler ?? asyncScheduler;
      const state: SchedulerState = createSchedulerState(options.shared);
      const running = new Map<number, Subscription>();
      let batchTimer: Subscription | undefined;
      let disposed = false;

      // Deferral needs the call to be alone in its response: count the tool calls and answer
      // waiting hooks once the model is done (or the attempt is void: then never defer).
      let toolUses = 0;
      let modelDone = false;
      let deferWaiters: ((alone: boolean) => void)[] = [];
      const settleDeferrals = (alone: boolean): void => {
        const waiters = deferWaiters;
        deferWaiters = [];
        for (const resolve of waiters) resolve(alone);
      };
      const mayDefer = (): boolean | Promise<boolean> => {
        if (modelDone || toolUses > 1) return modelDone && toolUses === 1;
        return new Promise<boolean>((resolve) => deferWaiters.push(resolve));
      };
      const trackDeferral = (event: AssemblyOutput): void => {
        if (event.type === 'block' && event.block.type === 'tool_use') {
          toolUses++;
          if (toolUses > 1) settleDeferrals(false);
        } else if (event.type === 'message_delta' || event.type === 'message') {
          modelDone = true;
          settleDeferrals(toolUses === 1);
        } else if (event.type === 'stream_retry') {
          toolUses = 0;
          modelDone = false;
          settleDeferrals(false);
        }
      };

      // Inputs arriving while one is being applied (a synchronous tool finishing inside its
      // own start) wait their turn: every step sees a consistent state, and events keep order.
      const queue: SchedulerInput[] = [];
      let draining = false;
      const dispatch = (input: SchedulerInput): void => {
        if (disposed) return;
        queue.push(input);
        if (draining) return;
        draining = true;
        try {
          for (let i = 0; i < queue.length && !disposed; i++) {
            for (const command of stepScheduler(state, queue[i]!, scheduler.now())) {
              if (disposed) break;
              execute(command);
            }
          }
        } finally {
          queue.length = 0;
          draining = false;
        }
      };

      const execute = (command: SchedulerCommand): void => {
        switch (command.type) {
          case 'start': {
            const { key, classified } = command.call;
            const subscription = runToolCall(classified.block, {
              tools: registry,
              shared: command.shared,
              prepared: classified,
              scheduler,
              ...(options.hooks ? { hooks: options.hooks } : {}),
              ...(options.canUseTool ? { canUseTool: options.canUseTool } : {}),
              ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
              ...(options.trace ? { trace: options.trace } : {}),
              ...(options.allowDefer ? { mayDefer } : {}),
            }).subscribe((event) => dispatch(toolEventInput(key, event, command.call.classified.concurrencySafe)));
            if (!subscription.closed) running.set(key, subscription);
            return;
          }
          case 'stop':
            running.get(command.key)?.unsubscribe();
            running.delete(command.key);
            return;
          case 'emit':
            output.next(command.event);
            return;
          case 'arm_batch_timeout': {
            const ms = options.batchTimeoutMs;
            if (ms !== undefined) {
              batchTimer = timer(ms, scheduler).subscribe(() => dispatch({ type: 'batch_timeout', timeoutMs: ms }));
            }
            return;
          }
          case 'interruptible':
            try {
              options.onInterruptibleChange?.(command.value);
            } catch (error) {
              // Like a throwing `tap` callback: the output errors. Thrown on, it would escape
              // through a tool's subscriber (an unhandled error) and leave the batch hanging.
              dispose();
              output.error(error);
            }
            return;
          case 'complete':
            dispose();
            output.complete();
            return;
          case 'error':
            dispose();
            output.error(command.error);
            return;
          default:
            assertNever(command, 'scheduler command');
        }
      };

      // The shared context after an unsafe call is computed here, outside the pure reducer,
      // because `contextChange` is user code. A change that throws leaves the context as it was.
      const toolEventInput = (key: number, event: ToolEvent, safe: boolean): SchedulerInput => {
        if (event.type !== 'tool_result' || safe || !event.contextChange) return { type: 'tool_event', key, event };
        try {
          return { type: 'tool_event', key, event, sharedAfter: event.contextChange(state.shared) };
        } catch (error) {
          const note = `The context change returned by \`${event.name}\` failed and was not applied: ${errorMessage(error)}`;
          return { type: 'tool_event', key, event: { ...event, additionalContext: [...(event.additionalContext ?? []), note] } };
        }
      };

      const dispose = (): void => {
        if (disposed) return;
        disposed = true;
        settleDeferrals(false);
        batchTimer?.unsubscribe();
        for (const subscription of running.values()) subscription.unsubscribe();
        running.clear();
      };

      // A driver's own error (interrupt$ or abort$ failing) is the output's error, as in a merge.
      const failOutput = (error: unknown): void => {
        dispose();
        output.error(error);
      };
      const onSourceError = (error: unknown): void => {
        settleDeferrals(false);
        dispatch({ type: 'source_error', error });
      };
      // What this operator does with the source's events, failing like a throwing `tap`: the
      // failure is treated as the source's error (the source is stopped first).
      const fromSource: Observer<AssemblyOutput> = {
        next: (event) => {
          try {
            if (options.allowDefer) trackDeferral(event);
            const input = toSchedulerInput(event, registry);
            if (input) dispatch(input);
          } catch (error) {
            sourceInput.unsubscribe();
            onSourceError(error);
          }
        },
        error: onSourceError,
        complete: () => {
          try {
            // A response that ended without a message_delta still has all its calls.
            if (!modelDone) {
              modelDone = true;
              settleDeferrals(toolUses === 1);
            }
            dispatch({ type: 'source_complete' });
          } catch (error) {
            onSourceError(error);
          }
        },
      };
      // A driver's signal, failing the output if applying it throws (as a throwing `tap` would).
      const signalOf = (input: SchedulerInput): Observer<unknown> => ({
        next: () => {
          try {
            dispatch(input);
          } catch (error) {
            failOutput(error);
          }
        },
        error: failOutput,
        complete: () => undefined,
      });

      // Teardown (an end of the batch, an error, or the consumer's unsubscribe) stops every call.
      output.add(dispose);
      // Drivers in the order they always were subscribed: abort, interrupts, then the source.
      // Each joins the output's teardown before it runs, so a batch that ends synchronously
      // inside a subscribe stops the rest at once.
      if (options.abort$) subscribeLinked(options.abort$, output, signalOf({ type: 'abort' }));
      if (options.interrupt$) subscribeLinked(options.interrupt$, output, signalOf({ type: 'interrupt' }));
      // The source's subscriber exists before the source runs: `next` may have to stop it midway.
      const sourceInput = new Subscriber<AssemblyOutput>(fromSource);
      output.add(sourceInput);
      if (!output.closed) source$.subscribe(sourceInput);
    });
}

/** Which assembly events matter to the scheduler. */
function toSchedulerInput(event: AssemblyOutput, registry: ToolRegistry): SchedulerInput | undefined {
  switch (event.type) {
    case 'block':
      if (event.block.type !== 'tool_use') return undefined;
      return { type: 'tool_use', call: classifyCall(event.block, registry), blockIndex: event.index };
    case 'block_start':
      return { type: 'block_start', index: event.index };
    case 'message_delta':
      return { type: 'model_done', stopReason: event.stopReason };
    case 'message':
      return { type: 'model_done', stopReason: event.message.stop_reason };
    case 'stream_retry':
      return { type: 'stream_retry' };
    case 'message_start':
    case 'text_delta':
    case 'thinking_delta':
    case 'tool_input_delta':
    case 'api_retry':
    case 'debug':
    case 'warning':
      return undefined;
    default:
      return assertNever(event, 'assembly event');
  }
}
