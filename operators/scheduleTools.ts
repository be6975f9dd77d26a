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
import { classifyCall, type ClassifiedCall } from '../src/tools/classifyCall.js';
import { errorMessage } from '../src/tools/errorTexts.js';
import type { CanUseTool, ToolHooks } from '../src/tools/hooks.js';
import { toRegistry, type ToolRegistry } from '../src/tools/registry.js';
import { startToolCall, type PipelineTraceEntry, type RunToolCallOptions, type ToolCallRun, type ToolCallSink } from '../src/tools/runToolCall.js';
import {
  createSchedulerState,
  stepReadsClock,
  stepScheduler,
  type SchedulerCommand,
  type SchedulerInput,
  type SchedulerState,
} from '../src/tools/schedulerState.js';
import type { SharedContext, Tool, ToolEvent } from '../src/tools/types.js';
import { assertNever } from '../src/util/assertNever.js';
import { emptyInPlace } from '../src/util/emptyInPlace.js';
import { keepRxShapes, keepShape } from '../src/util/keepShape.js';
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
  // One Observable listening to its drivers directly, and one `ToolBatch` object whose methods
  // are module-level code: a real turn's batch has one or two calls, so the batch's fixed cost
  // is what it pays. No closure per batch either: V8 keeps a closure's optimized code only while
  // some instance of it lives, so the two closures this made per batch (the operator and the
  // subscribe function, the latter inlining the batch's setup) were compiled again by TurboFan
  // after every full GC (issue 20 §2, bench/README.md "Session 12"). A bound module function
  // and a subclass with its own `_subscribe` are the same calls without that.
  return applyScheduleTools.bind(options) as OperatorFunction<AssemblyOutput, ToolEvent>;
}

function applyScheduleTools(this: ScheduleToolsOptions, source$: Observable<AssemblyOutput>): Observable<ToolEvent> {
  return new ToolBatchObservable(this, source$);
}

/**
 * The cold output of one `scheduleTools(options)` applied to one source: each subscription is
 * its own batch. `_subscribe` is what `new Observable(subscribe)` stores as an own property and
 * `Observable.subscribe` calls (with a try/catch around it); defined on the class it is one
 * piece of code for every batch. `lift` on it makes a plain Observable, as on any other.
 */
class ToolBatchObservable extends Observable<ToolEvent> {
  constructor(
    private readonly options: ScheduleToolsOptions,
    private readonly source$: Observable<AssemblyOutput>,
  ) {
    super();
  }

  protected _subscribe(output: Subscriber<ToolEvent>): void {
    new ToolBatch(this.options, output).listen(this.source$);
  }
}

/** The arrays one drain of a batch's inputs works in (see `ToolBatch.dispatch`). */
interface DrainScratch {
  readonly queue: SchedulerInput[];
  readonly commands: SchedulerCommand[];
}

/**
 * Drain arrays lent out while a batch applies its inputs and given back, emptied, when it is
 * done: each new array's backing store was ~150 bytes of a one-tool batch's garbage (issue 20
 * §2). Only held during a synchronous drain, so there are as many as drains ever nested (a tool
 * that runs a batch inside its own synchronous call).
 */
const SPARE_SCRATCH: DrainScratch[] = [];

/** Payload-free, so one constant (the reducer only reads its inputs). */
const SOURCE_COMPLETE: SchedulerInput = Object.freeze({ type: 'source_complete' });

/** The batch of one subscription: the scheduler state and what carries out its commands. */
class ToolBatch implements Observer<AssemblyOutput> {
  readonly registry: ToolRegistry;
  readonly scheduler: SchedulerLike;
  readonly state: SchedulerState;
  // The running calls' sinks indexed by call key (keys count up from 0 in one subscription):
  // a Map cost a one-tool batch ~450 bytes of its ~10 KB (its table, its delete, its iterator).
  // Made with its first sink as a literal: growing an empty array reserves 17 slots (~150 bytes).
  running: (CallSink | undefined)[] | undefined = undefined;
  batchTimer: Subscription | undefined = undefined;
  disposed = false;
  // Deferral needs the call to be alone in its response: count the tool calls and answer
  // waiting hooks once the model is done (or the attempt is void: then never defer).
  toolUses = 0;
  modelDone = false;
  // Made by the first waiter: most batches have none (an empty array is garbage per batch).
  deferWaiters: ((alone: boolean) => void)[] | undefined = undefined;
  /** Given to calls only with `allowDefer`. */
  readonly mayDefer: (() => boolean | Promise<boolean>) | undefined;
  /**
   * Set while inputs are being applied. Inputs arriving meanwhile (a synchronous tool finishing
   * inside its own start) wait in its queue: every step sees a consistent state, and events
   * keep order.
   */
  scratch: DrainScratch | undefined = undefined;
  sourceInput: Subscriber<AssemblyOutput> | undefined = undefined;

  constructor(
    readonly options: ScheduleToolsOptions,
    readonly output: Subscriber<ToolEvent>,
  ) {
    this.registry = toRegistry(options.tools);
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.state = createSchedulerState(options.shared);
    this.mayDefer = options.allowDefer ? () => this.deferAnswer() : undefined;
  }

  listen(source$: Observable<AssemblyOutput>): void {
    const output = this.output;
    // Teardown (an end of the batch, an error, or the consumer's unsubscribe) stops every call:
    // the batch is its own teardown (`unsubscribe`), not a closure made for it.
    output.add(this);
    // Drivers in the order they always were subscribed: abort, interrupts, then the source.
    // Each joins the output's teardown before it runs, so a batch that ends synchronously
    // inside a subscribe stops the rest at once.
    if (this.options.abort$) subscribeLinked(this.options.abort$, output, new DriverSignal(this, { type: 'abort' }));
    if (this.options.interrupt$) subscribeLinked(this.options.interrupt$, output, new DriverSignal(this, { type: 'interrupt' }));
    // The source's subscriber exists before the source runs: `next` may have to stop it midway.
    const sourceInput = new Subscriber<AssemblyOutput>(this);
    this.sourceInput = sourceInput;
    output.add(sourceInput);
    if (!output.closed) source$.subscribe(sourceInput);
  }

  settleDeferrals(alone: boolean): void {
    const waiters = this.deferWaiters;
    if (!waiters) return;
    this.deferWaiters = undefined;
    for (const resolve of waiters) resolve(alone);
  }

  deferAnswer(): boolean | Promise<boolean> {
    if (this.modelDone || this.toolUses > 1) return this.modelDone && this.toolUses === 1;
    return new Promise<boolean>((resolve) => (this.deferWaiters ??= []).push(resolve));
  }

  trackDeferral(event: AssemblyOutput): void {
    if (event.type === 'block' && event.block.type === 'tool_use') {
      this.toolUses++;
      if (this.toolUses > 1) this.settleDeferrals(false);
    } else if (event.type === 'message_delta' || event.type === 'message') {
      this.modelDone = true;
      this.settleDeferrals(this.toolUses === 1);
    } else if (event.type === 'stream_retry') {
      this.toolUses = 0;
      this.modelDone = false;
      this.settleDeferrals(false);
    }
  }

  dispatch(input: SchedulerInput): void {
    if (this.disposed) return;
    if (this.scratch) {
      this.scratch.queue.push(input);
      return;
    }
    const scratch = SPARE_SCRATCH.pop() ?? { queue: [], commands: [] };
    this.scratch = scratch;
    const { queue, commands } = scratch;
    queue.push(input);
    try {
      // One commands array for every step: a step's commands are carried out before the next
      // step runs (inputs arriving meanwhile wait in the queue), so it is never read twice.
      for (let i = 0; i < queue.length && !this.disposed; i++) {
        emptyInPlace(commands);
        const input = queue[i]!;
        // NaN where the step reads no time (see stepReadsClock): a wrong answer would show.
        stepScheduler(this.state, input, stepReadsClock(this.state, input) ? this.scheduler.now() : Number.NaN, commands);
        for (let c = 0; c < commands.length && !this.disposed; c++) this.execute(commands[c]!);
      }
    } finally {
      emptyInPlace(commands);
      emptyInPlace(queue);
      this.scratch = undefined;
      SPARE_SCRATCH.push(scratch);
    }
  }

  execute(command: SchedulerCommand): void {
    switch (command.type) {
      case 'start': {
        const { key, classified } = command.call;
        const sink = new CallSink(this, key, classified.concurrencySafe);
        sink.run = startToolCall(classified.block, callOptions(this, command.shared, classified), sink);
        // Known before it begins, so a batch that ends inside a synchronous call stops it too.
        if (this.running) this.running[key] = sink;
        else if (key === 0) this.running = [sink];
        else {
          this.running = [];
          this.running[key] = sink;
        }
        sink.run.begin();
        // The batch may have ended (and dropped `running`) inside a synchronous call.
        if (sink.closed && this.running) this.running[key] = undefined;
        return;
      }
      case 'stop':
        if (this.running) {
          this.running[command.key]?.stop();
          this.running[command.key] = undefined;
        }
        return;
      case 'emit':
        this.output.next(command.event);
        return;
      case 'arm_batch_timeout': {
        const ms = this.options.batchTimeoutMs;
        if (ms !== undefined) {
          this.batchTimer = timer(ms, this.scheduler).subscribe(() => this.dispatch({ type: 'batch_timeout', timeoutMs: ms }));
        }
        return;
      }
      case 'interruptible':
        try {
          this.options.onInterruptibleChange?.(command.value);
        } catch (error) {
          // Like a throwing `tap` callback: the output errors. Thrown on, it would escape
          // through a tool's subscriber (an unhandled error) and leave the batch hanging.
          this.dispose();
          this.output.error(error);
        }
        return;
      case 'complete':
        this.dispose();
        this.output.complete();
        return;
      case 'error':
        this.dispose();
        this.output.error(command.error);
        return;
      default:
        assertNever(command, 'scheduler command');
    }
  }

  // The shared context after an unsafe call is computed here, outside the pure reducer,
  // because `contextChange` is user code. A change that throws leaves the context as it was.
  toolEventInput(key: number, event: ToolEvent, safe: boolean): SchedulerInput {
    if (event.type !== 'tool_result' || safe || !event.contextChange) return { type: 'tool_event', key, event };
    try {
      return { type: 'tool_event', key, event, sharedAfter: event.contextChange(this.state.shared) };
    } catch (error) {
      const note = `The context change returned by \`${event.name}\` failed and was not applied: ${errorMessage(error)}`;
      return { type: 'tool_event', key, event: { ...event, additionalContext: [...(event.additionalContext ?? []), note] } };
    }
  }

  /** The output's teardown. */
  unsubscribe(): void {
    this.dispose();
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.settleDeferrals(false);
    this.batchTimer?.unsubscribe();
    const running = this.running;
    this.running = undefined;
    if (running) for (let key = 0; key < running.length; key++) running[key]?.stop();
  }

  // A driver's own error (interrupt$ or abort$ failing) is the output's error, as in a merge.
  failOutput(error: unknown): void {
    this.dispose();
    this.output.error(error);
  }

  onSourceError(error: unknown): void {
    this.settleDeferrals(false);
    this.dispatch({ type: 'source_error', error });
  }

  // Observer of the source: what this operator does with its events, failing like a throwing
  // `tap`: the failure is treated as the source's error (the source is stopped first).
  next(event: AssemblyOutput): void {
    try {
      if (this.options.allowDefer) this.trackDeferral(event);
      const input = toSchedulerInput(event, this.registry);
      if (input) this.dispatch(input);
    } catch (error) {
      this.sourceInput?.unsubscribe();
      this.onSourceError(error);
    }
  }

  error(error: unknown): void {
    this.onSourceError(error);
  }

  complete(): void {
    try {
      // A response that ended without a message_delta still has all its calls.
      if (!this.modelDone) {
        this.modelDone = true;
        this.settleDeferrals(this.toolUses === 1);
      }
      this.dispatch(SOURCE_COMPLETE);
    } catch (error) {
      this.onSourceError(error);
    }
  }
}

/** Where one running call delivers: into the batch's queue, until the batch stops it. */
class CallSink implements ToolCallSink {
  closed = false;
  run: ToolCallRun | undefined = undefined;

  constructor(
    private readonly batch: ToolBatch,
    private readonly key: number,
    private readonly safe: boolean,
  ) {}

  next(event: ToolEvent): void {
    if (!this.closed) this.batch.dispatch(this.batch.toolEventInput(this.key, event, this.safe));
  }

  complete(): void {
    this.closed = true;
  }

  /** Unsubscribes the call (its signal aborts unless it finished); a no-op once it completed. */
  stop(): void {
    this.closed = true;
    this.run?.unsubscribe();
  }
}

/** A driver's signal (abort$, interrupt$), failing the output if applying it throws (as a throwing `tap` would). */
class DriverSignal implements Observer<unknown> {
  constructor(
    private readonly batch: ToolBatch,
    private readonly input: SchedulerInput,
  ) {}

  next(): void {
    try {
      this.batch.dispatch(this.input);
    } catch (error) {
      this.batch.failOutput(error);
    }
  }

  error(error: unknown): void {
    this.batch.failOutput(error);
  }

  complete(): void {}
}

// One idle instance of each class (and of the Subscriber the source is given), so their hidden
// classes and the code optimized for them survive a full GC between batches (see keepShape).
const IDLE_BATCH = keepShape(new ToolBatch({ tools: [], shared: {} }, keepShape(new Subscriber<ToolEvent>())));
keepShape(new CallSink(IDLE_BATCH, 0, true));
keepShape(new DriverSignal(IDLE_BATCH, { type: 'abort' }));
keepShape(new Subscriber<AssemblyOutput>(IDLE_BATCH));
keepShape(new ToolBatchObservable(IDLE_BATCH.options, new Observable<AssemblyOutput>()));
keepRxShapes();

/** What one call of the batch is run with. */
function callOptions(batch: ToolBatch, shared: SharedContext, prepared: ClassifiedCall): RunToolCallOptions {
  const options = batch.options;
  // Optional fields assigned in place, not spread: each conditional spread allocated an object,
  // and a one-tool batch's cost after a full GC is mostly its garbage (issue 20 §2).
  const run: Mutable<RunToolCallOptions> = { tools: batch.registry, shared, prepared, scheduler: batch.scheduler };
  if (options.hooks) run.hooks = options.hooks;
  if (options.canUseTool) run.canUseTool = options.canUseTool;
  if (options.timeoutMs !== undefined) run.timeoutMs = options.timeoutMs;
  if (options.trace) run.trace = options.trace;
  if (batch.mayDefer) run.mayDefer = batch.mayDefer;
  return run;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

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
