/**
 * One tool call's pipeline (SPEC §4 "One call's pipeline"), as a cold Observable.
 *
 * ```
 *  1 find_tool      2 abort_check     3 parse_input     4 validate_schema   5 validate_input
 *  6 pre_tool_use   7 permission      8 revalidate_input 9 mark_in_progress 10 call
 * 11 map_result    12 post_tool_use  13 validate_output 14 emit_result     15 clear_in_progress
 * ```
 *
 * Every way a call can fail ends in exactly one `tool_result` with `is_error: true` and a text
 * the model can act on; the Observable itself never errors. A failure before step 9 emits only
 * the result (no `tool_start`): consumers see a start only for tools that were really called.
 */
import { asyncScheduler, Observable, timer, type Observer, type SchedulerLike, type Subscription } from 'rxjs';
import { isInvalidToolUse, type InvalidToolUseBlock } from '../assembly/types.js';
import type { ToolResultBlock, ToolUseBlock } from '../protocol/content.js';
import { fromMaybeAsync, isPlainAnswer, isPromiseLike, type MaybeAsync } from '../../operators/internal/fromMaybeAsync.js';
import { classifyCall, type ClassifiedCall } from './classifyCall.js';
import {
  abortedBeforeStartText,
  cancelledText,
  deferredText,
  errorMessage,
  hookBlockedText,
  invalidJsonText,
  invalidRewriteText,
  permissionDeniedText,
  postHookBlockedText,
  rejectedOutputRewriteText,
  schemaIssuesText,
  seamFailedText,
  timeoutText,
  toolThrewText,
  unknownToolText,
  validateInputText,
} from './errorTexts.js';
import { askDeniedMessage, type CanUseTool, type PermissionDecision, type StopContinuation, type ToolHooks } from './hooks.js';
import { drive, settle, type DriveHost } from './maybeAsync.js';
import { closestToolNames, toRegistry, type ToolRegistry } from './registry.js';
import { defaultRenderResult, limitResultSize } from './renderResult.js';
import type { SharedContext, Tool, ToolCallContext, ToolEvent, ToolOutcome, ToolResultContent } from './types.js';
import { ToolFailure } from './toolFailure.js';
import { keepShape } from '../util/keepShape.js';

/** The steps of one call's pipeline (SPEC §4), as reported to a trace observer. */
export type PipelineStep =
  | 'find_tool'
  | 'abort_check'
  | 'parse_input'
  | 'validate_schema'
  | 'validate_input'
  | 'pre_tool_use'
  | 'permission'
  | 'revalidate_input'
  | 'mark_in_progress'
  | 'call'
  | 'map_result'
  | 'post_tool_use'
  | 'validate_output'
  | 'emit_result'
  | 'clear_in_progress';

/** One step that ran. 'failed' ends the call with an error result (except for validate_output). */
export interface PipelineTraceEntry {
  readonly toolUseId: string;
  readonly step: PipelineStep;
  readonly status: 'ok' | 'failed' | 'skipped';
  readonly detail?: string;
}

/** Options of {@link runToolCall}: the tools, the shared context, the hooks, the permission seam and the limits. */
export interface RunToolCallOptions {
  /** The tool set; pass the same array (or a registry) each time: the index is cached. */
  readonly tools: readonly Tool[] | ToolRegistry;
  /** The shared context the tool sees (read-only). Default `{}`. */
  readonly shared?: SharedContext;
  readonly hooks?: ToolHooks;
  /** The permission decision (step 7). Default: allow, unless a hook asked ('ask' -> denied). */
  readonly canUseTool?: CanUseTool;
  /** Default limit for the call phase (steps 10-13) of tools without their own `timeoutMs`. */
  readonly timeoutMs?: number;
  /** Cancels the call from outside: the result is a cancellation error. */
  readonly signal?: AbortSignal;
  /** For timeouts and `durationMs`. Default `asyncScheduler` (virtual inside `TestScheduler.run`). */
  readonly scheduler?: SchedulerLike;
  /** Observes each step as it runs (tests, debugging). Must not throw. */
  readonly trace?: (entry: PipelineTraceEntry) => void;
  /** A classification made earlier (by the scheduler), so the input is not parsed twice. */
  readonly prepared?: ClassifiedCall;
  /**
   * Whether a PreToolUse 'defer' may be honoured for this call (the scheduler answers once it
   * knows the call is alone in its response). Absent or false: 'defer' is ignored, reported on
   * the result as `deferral: { accepted: false }`.
   */
  readonly mayDefer?: () => boolean | PromiseLike<boolean>;
}

type Prepared = { readonly ok: true; readonly tool: Tool; readonly input: unknown } | { readonly ok: false };
type ToolResultEvent = Extract<ToolEvent, { type: 'tool_result' }>;
/** A result event while it is being built (its optional fields are set one by one). */
type Mutable<T> = { -readonly [K in keyof T]: T[K] };

const EMPTY_SHARED: SharedContext = Object.freeze({});
const NO_HOOKS: ToolHooks = Object.freeze({});

/**
 * Where one call delivers its events: a `Subscriber` (runToolCall), or the scheduler's own
 * per-call sink (scheduleTools, which then pays no Observable and no subscriber per call).
 */
export interface ToolCallSink {
  readonly closed: boolean;
  next(event: ToolEvent): void;
  complete(): void;
}

/**
 * Runs one `tool_use` through the pipeline.
 *
 * ```
 * call:         ---p--(o|)          (a cold tool emitting progress, then its outcome)
 * runToolCall:  s--p--(r|)          s = tool_start, p = tool_progress, r = tool_result
 * ```
 *
 * Cold: nothing happens before subscribe. Each subscription has its own AbortController:
 * unsubscribing, the timeout or `options.signal` abort `ctx.signal`, and whatever the tool
 * delivers afterwards is dropped.
 */
export function runToolCall(block: ToolUseBlock | InvalidToolUseBlock, options: RunToolCallOptions): Observable<ToolEvent> {
  return new Observable<ToolEvent>((subscriber) => {
    const run = startToolCall(block, options, subscriber);
    subscriber.add(run);
    run.begin();
  });
}

/**
 * The call's run, not begun: `begin()` starts it, `unsubscribe()` stops it (its signal aborts,
 * late deliveries are dropped). For the scheduler, which adds it to its own teardown first.
 */
export function startToolCall(block: ToolUseBlock | InvalidToolUseBlock, options: RunToolCallOptions, sink: ToolCallSink): ToolCallRun {
  return new ToolCallRun(block, options, sink);
}

/**
 * One call's state and steps. A class, not a closure per call: its methods are module-level code
 * whose optimized form outlives each call (bench/README.md "After a forced GC"), and a call
 * allocates this one object where it allocated a dozen closures (issue 20 §2).
 */
export class ToolCallRun implements DriveHost<Prepared | undefined> {
  readonly registry: ToolRegistry;
  readonly scheduler: SchedulerLike;
  readonly shared: SharedContext;
  readonly hooks: ToolHooks;
  readonly startedAt: number;
  readonly toolUseId: string;
  readonly name: string;
  readonly ctx: ToolCallContext;
  // Created on first use: most tools never look at their signal, and an AbortSignal is the
  // single most expensive allocation of a call (measured: ~40% of a no-op call's time).
  controller: AbortController | undefined = undefined;
  cut = false;
  additionalContext: string[] | undefined = undefined;
  stopContinuation: StopContinuation | undefined = undefined;
  deferral: { readonly accepted: boolean; readonly reason?: string } | undefined = undefined;
  inProgress = false;
  /** The tool being called (for the structured result of a call stopped midway) and its input. */
  runningTool: Tool | undefined = undefined;
  calledInput: unknown = undefined;
  finished = false;
  stopped = false;
  currentStep: PipelineStep = 'find_tool';
  callSubscription: Subscription | undefined = undefined;
  timeoutSubscription: Subscription | undefined = undefined;
  /** The outcome the tool delivered last (its items before completion). */
  last: ToolOutcome<unknown> | undefined = undefined;
  /** Bound once, only when `options.signal` is given. */
  abortListener: (() => void) | undefined = undefined;

  constructor(
    readonly block: ToolUseBlock | InvalidToolUseBlock,
    readonly options: RunToolCallOptions,
    readonly sink: ToolCallSink,
  ) {
    this.registry = toRegistry(options.tools);
    this.scheduler = options.scheduler ?? asyncScheduler;
    this.shared = options.shared ?? EMPTY_SHARED;
    this.hooks = options.hooks ?? NO_HOOKS;
    this.startedAt = this.scheduler.now();
    this.toolUseId = block.id;
    this.name = block.name;
    this.ctx = new CallContext(this);
  }

  begin(): void {
    const outer = this.options.signal;
    if (outer && !this.stopped) {
      this.abortListener = () => this.onOuterAbort();
      outer.addEventListener('abort', this.abortListener, { once: true });
    }
    if (this.isCancelled()) return;
    let checked: Prepared;
    try {
      checked = checkCall(this);
    } catch (error) {
      this.onError(error);
      return;
    }
    if (!checked.ok) return;
    // Without seams nothing can wait: no generator (a suspended or finished one outlived its call
    // in the young generation and made each scavenge copy the whole call; issue 20 §2).
    if (hasSeams(this, checked.tool)) {
      drive<Prepared | undefined>(prepare(this, checked.tool, checked.input), this);
      return;
    }
    this.trace('validate_input', 'skipped');
    this.trace('pre_tool_use', 'skipped');
    this.trace('permission', 'ok');
    this.trace('revalidate_input', 'skipped');
    this.call(checked.tool, checked.input);
  }

  signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.cut) this.controller.abort();
    }
    return this.controller.signal;
  }

  trace(step: PipelineStep, status: PipelineTraceEntry['status'], detail?: string): void {
    this.currentStep = step;
    const observer = this.options.trace;
    if (!observer) return;
    try {
      const toolUseId = this.toolUseId;
      observer(detail === undefined ? { toolUseId, step, status } : { toolUseId, step, status, detail });
    } catch {
      // An observer for tests and debugging: its failure must not change (or lose) the call's result.
    }
  }

  progress(data: unknown): void {
    if (!this.finished && !this.sink.closed) this.sink.next({ type: 'tool_progress', toolUseId: this.toolUseId, name: this.name, data });
  }

  addContext(text: string): void {
    (this.additionalContext ??= []).push(text);
  }

  /** Steps 14 and 15: the single exit of every path. */
  finish(result: ToolResultBlock, outcome?: ToolOutcome<unknown>, structured?: unknown): void {
    if (this.finished || this.sink.closed) return;
    this.finished = true;
    this.timeoutSubscription?.unsubscribe();
    this.trace('emit_result', 'ok');
    const additionalContext = this.additionalContext;
    // Optional fields assigned in place, in the order a spread would give them: a conditional
    // spread allocates an object per field and a copy, and a one-tool batch's fixed cost is
    // mostly its garbage after a full GC (issue 20 §2, bench/README.md "After a forced GC").
    const event: Mutable<ToolResultEvent> = {
      type: 'tool_result',
      toolUseId: this.toolUseId,
      name: this.name,
      result,
      endsTurn: outcome?.endsTurn === true,
      durationMs: this.scheduler.now() - this.startedAt,
    };
    if (structured !== undefined) event.structured = structured;
    if (outcome?.contextChange) event.contextChange = outcome.contextChange;
    if (additionalContext && additionalContext.length > 0) event.additionalContext = [...additionalContext];
    if (this.stopContinuation) event.stopContinuation = this.stopContinuation;
    if (this.deferral) event.deferral = this.deferral;
    this.sink.next(event);
    this.trace('clear_in_progress', this.inProgress ? 'ok' : 'skipped');
    this.inProgress = false;
    this.sink.complete();
    this.unsubscribe();
  }

  fail(step: PipelineStep, text: string, structured?: unknown): { ok: false } {
    this.trace(step, 'failed', text);
    this.finish(errorResult(this.toolUseId, text), undefined, structured);
    return { ok: false };
  }

  /** Stop everything the call started; the tool's late deliveries find a closed sink. */
  cutOff(): void {
    this.callSubscription?.unsubscribe();
    this.timeoutSubscription?.unsubscribe();
    if (!this.finished && !this.cut) {
      this.cut = true;
      this.controller?.abort();
    }
  }

  /** The teardown: the consumer unsubscribed, or the call ended. */
  unsubscribe(): void {
    this.cutOff();
    if (this.stopped) return;
    this.stopped = true;
    if (this.abortListener) this.options.signal?.removeEventListener('abort', this.abortListener);
  }

  onOuterAbort(): void {
    if (this.finished) return;
    const step = this.currentStep;
    this.cutOff();
    if (this.inProgress) this.fail(step, cancelledText(this.name), this.runningTool?.stoppedResult?.('interrupted'));
    else this.fail(step, abortedBeforeStartText(this.name));
  }

  /** A settlement after the call ended or was stopped is dropped (as an unsubscribed stream's). */
  isDropped(): boolean {
    return this.finished || this.stopped || this.sink.closed;
  }

  // DriveHost: both generators (prepare, post) report here.
  isCancelled(): boolean {
    return this.finished || this.sink.closed;
  }

  onDone(prepared: Prepared | undefined): void {
    if (prepared?.ok) this.call(prepared.tool, prepared.input);
  }

  /** A bug in the pipeline itself still ends in one error result, never an error notification. */
  onError(error: unknown): void {
    if (!this.finished) this.fail(this.currentStep, toolThrewText(this.name, error));
  }

  call(tool: Tool, input: unknown): void {
    // 9. in progress
    this.inProgress = true;
    this.runningTool = tool;
    this.calledInput = input;
    this.trace('mark_in_progress', 'ok');
    this.sink.next({ type: 'tool_start', toolUseId: this.toolUseId, name: this.name, input });
    if (this.sink.closed) return;
    // 10. call
    this.trace('call', 'ok');
    const timeoutMs = tool.timeoutMs ?? this.options.timeoutMs;
    if (timeoutMs !== undefined) {
      this.timeoutSubscription = timer(timeoutMs, this.scheduler).subscribe(() => {
        if (this.finished) return;
        this.cutOff();
        this.fail('call', timeoutText(this.name, timeoutMs), tool.stoppedResult?.('timed_out'));
      });
    }
    let answer: MaybeAsync<unknown>;
    try {
      answer = tool.call(input, this.ctx) as MaybeAsync<unknown>;
    } catch (error) {
      this.fail('call', toolThrewText(this.name, error));
      return;
    }
    // A plain value or a Promise (what nearly every tool answers) is taken directly; a stream
    // goes through `fromMaybeAsync`. Both deliver the same items in the same order.
    if (isPlainAnswer(answer)) {
      this.onItem(answer);
      this.onCallComplete();
      return;
    }
    if (isPromiseLike(answer)) {
      answer.then(
        (value) => {
          if (this.isDropped()) return;
          this.onItem(value);
          this.onCallComplete();
        },
        (error: unknown) => {
          if (!this.isDropped()) this.onCallError(error);
        },
      );
      return;
    }
    this.callSubscription = fromMaybeAsync(answer).subscribe(new CallObserver(this));
    if (this.finished) this.callSubscription.unsubscribe();
  }

  onItem(item: unknown): void {
    if (this.finished) return;
    if (isProgress(item)) this.ctx.progress(item.data);
    else this.last = isOutcome(item) ? item : { type: 'outcome', output: item };
  }

  onCallError(error: unknown): void {
    if (!this.finished) this.fail('call', toolThrewText(this.name, error), error instanceof ToolFailure ? error.structured : undefined);
  }

  onCallComplete(): void {
    if (this.finished) return;
    this.timeoutSubscription?.unsubscribe();
    const tool = this.runningTool!;
    const outcome = this.last ?? { type: 'outcome', output: undefined };
    try {
      const result = mapResult(this, tool, outcome.output);
      if (!result) return;
      if ((this.hooks.postToolUse?.length ?? 0) > 0) drive<Prepared | undefined>(post(this, tool, outcome, result), this);
      else completeCall(this, tool, outcome, result, undefined, NO_BLOCKS);
    } catch (error) {
      this.onError(error);
    }
  }
}

/** The tool's stream, for a tool that answers one (an Observable, an async iterable). */
class CallObserver implements Observer<unknown> {
  constructor(private readonly run: ToolCallRun) {}
  next(item: unknown): void {
    this.run.onItem(item);
  }
  error(error: unknown): void {
    this.run.onCallError(error);
  }
  complete(): void {
    this.run.onCallComplete();
  }
}

/**
 * The context a tool sees. A class with `signal` as a prototype getter (made on first use), not
 * an object literal with its own getter: V8 allocates such a literal in the old generation, and
 * from there it kept its call (and all the call reached) alive through every scavenge until the
 * next full GC. That made a one-tool batch cost 15-18 us steady instead of 5-7 (issue 20 §2).
 * Own properties are the plain fields; a copy by spread has no `signal` (none of ours copies it).
 */
class CallContext implements ToolCallContext {
  readonly toolUseId: string;
  readonly shared: SharedContext;
  /** An own function: tools may pass `ctx.progress` on by itself. */
  readonly progress: (data: unknown) => void;

  readonly #run: ToolCallRun;

  constructor(run: ToolCallRun) {
    this.#run = run;
    this.toolUseId = run.toolUseId;
    this.shared = run.shared;
    this.progress = (data) => run.progress(data);
  }

  get signal(): AbortSignal {
    return this.#run.signal();
  }
}

// One idle run of each class, so their hidden classes (and the code optimized for them)
// survive a full GC while no call runs (see keepShape).
const CLOSED_SINK: ToolCallSink = { closed: true, next: () => undefined, complete: () => undefined };
keepShape(new CallObserver(keepShape(new ToolCallRun({ type: 'tool_use', id: '', name: '', input: {} }, { tools: [] }, CLOSED_SINK))));

/** Steps 1-4, which never wait: the tool and its parsed input. */
function checkCall(run: ToolCallRun): Prepared {
  const { block, options, name } = run;
  // 1. find the tool
  const prepared = options.prepared ?? classifyCall(block, run.registry);
  const tool = prepared.tool;
  if (!tool) {
    const available = run.registry.tools.map((t) => t.name);
    return run.fail('find_tool', unknownToolText(name, closestToolNames(name, run.registry), available));
  }
  run.trace('find_tool', 'ok');
  // 2. abort check: no parsing, no hooks once cancelled
  if (options.signal?.aborted) return run.fail('abort_check', abortedBeforeStartText(name));
  run.trace('abort_check', 'ok');
  // 3. JSON (assembly parsed it once; an unparseable input arrives as InvalidToolUseBlock)
  if (isInvalidToolUse(block)) return run.fail('parse_input', invalidJsonText(name, block.invalid.rawInput, block.invalid.reason));
  run.trace('parse_input', 'ok');
  // 4. schema
  const parsed = prepared.parsed;
  if (!parsed) return run.fail('validate_schema', toolThrewText(name, prepared.parseError ?? 'the input schema could not be checked'));
  if (!parsed.success) return run.fail('validate_schema', schemaIssuesText(name, parsed.error.issues, block.input));
  run.trace('validate_schema', 'ok');
  return { ok: true, tool, input: parsed.data };
}

/** Whether steps 5-7 have a seam to ask, which may answer later (else they are skipped at once). */
function hasSeams(run: ToolCallRun, tool: Tool): boolean {
  return tool.validateInput !== undefined || (run.hooks.preToolUse?.length ?? 0) > 0 || run.options.canUseTool !== undefined;
}

/** Steps 5-8, the seams: from the parsed input to the input the tool is called with. */
function* prepare(run: ToolCallRun, tool: Tool, parsedInput: unknown): Generator<unknown, Prepared, unknown> {
  const { options, name, toolUseId, shared } = run;
  let input = parsedInput;
  // 5. the tool's own check
  if (tool.validateInput) {
    let verdict;
    try {
      verdict = yield* settle(tool.validateInput(input, run.ctx));
    } catch (error) {
      return run.fail('validate_input', toolThrewText(name, error));
    }
    if (!verdict.ok) return run.fail('validate_input', validateInputText(name, verdict.message));
    run.trace('validate_input', 'ok');
  } else {
    run.trace('validate_input', 'skipped');
  }
  // 6. PreToolUse hooks, in order; each sees the previous rewrite
  let rewrittenBy: string | undefined;
  let hookDecision: PermissionDecision | undefined;
  let hookReason: string | undefined;
  const preHooks = run.hooks.preToolUse ?? [];
  for (const hook of preHooks) {
    let answer;
    try {
      answer = yield* settle(
        hook({
          toolName: tool.name,
          toolInput: input,
          toolUseId,
          shared,
          get signal() {
            return run.signal();
          },
        }),
      );
    } catch (error) {
      return run.fail('pre_tool_use', seamFailedText(name, 'PreToolUse hook', error));
    }
    if (!answer) continue;
    if (answer.additionalContext) run.addContext(answer.additionalContext);
    if (answer.stopContinuation && !run.stopContinuation) run.stopContinuation = answer.stopContinuation;
    if (answer.decision === 'deny') {
      return run.fail('pre_tool_use', hookBlockedText(name, answer.reason ?? 'no reason given'));
    }
    if (answer.decision === 'defer' && run.deferral === undefined) {
      let accepted = false;
      try {
        accepted = options.mayDefer ? (yield* settle(options.mayDefer())) === true : false;
      } catch {
        accepted = false;
      }
      run.deferral = answer.reason !== undefined ? { accepted, reason: answer.reason } : { accepted };
      if (accepted) {
        // Not run, not answered: the placeholder result never reaches the model.
        run.trace('pre_tool_use', 'ok', 'deferred');
        run.finish(errorResult(toolUseId, deferredText(name, answer.reason)));
        return { ok: false };
      }
    }
    if (answer.updatedInput !== undefined) {
      input = answer.updatedInput;
      rewrittenBy = 'a PreToolUse hook';
    }
    if (answer.decision === 'ask' || (answer.decision === 'allow' && hookDecision === undefined)) {
      hookDecision = answer.decision;
      hookReason = answer.reason;
    }
  }
  run.trace('pre_tool_use', preHooks.length > 0 ? 'ok' : 'skipped');
  // 7. permission
  if (options.canUseTool) {
    let verdict;
    try {
      verdict = yield* settle(
        options.canUseTool(tool.name, input, {
          toolUseId,
          shared,
          get signal() {
            return run.signal();
          },
          hookDecision,
          hookReason,
        }),
      );
    } catch (error) {
      return run.fail('permission', seamFailedText(name, 'permission check', error));
    }
    switch (verdict.behavior) {
      case 'deny':
        return run.fail('permission', permissionDeniedText(name, verdict.message));
      case 'ask':
        return run.fail('permission', askDeniedMessage(name, verdict.message ?? hookReason));
      case 'allow':
        if (verdict.updatedInput !== undefined) {
          input = verdict.updatedInput;
          rewrittenBy = 'the permission check';
        }
        break;
      default: {
        // Only a cast or plain JS gets here: an answer we do not know must not run the call.
        const unknownAnswer: never = verdict;
        return run.fail('permission', seamFailedText(name, 'permission check', `it answered ${JSON.stringify(unknownAnswer)}`));
      }
    }
  } else if (hookDecision === 'ask') {
    return run.fail('permission', askDeniedMessage(name, hookReason));
  }
  run.trace('permission', 'ok');
  // 8. a rewritten input must pass the schema again
  if (rewrittenBy !== undefined) {
    let again;
    try {
      again = tool.inputSchema.safeParse(input);
    } catch (error) {
      return run.fail('revalidate_input', toolThrewText(name, error));
    }
    if (!again.success) return run.fail('revalidate_input', invalidRewriteText(name, rewrittenBy, again.error.issues, input));
    input = again.data;
    run.trace('revalidate_input', 'ok');
  } else {
    run.trace('revalidate_input', 'skipped');
  }
  return { ok: true, tool, input };
}

/** Step 11: the tool's output as content (undefined: it failed, and the call is answered). */
function mapResult(run: ToolCallRun, tool: Tool, output: unknown): ToolResultBlock | undefined {
  let content: ToolResultContent;
  try {
    content = render(tool, output);
  } catch (error) {
    run.fail('map_result', toolThrewText(run.name, error));
    return undefined;
  }
  run.trace('map_result', 'ok');
  return { type: 'tool_result', tool_use_id: run.toolUseId, content };
}

const NO_BLOCKS: readonly string[] = Object.freeze([]);

/** Step 12, the PostToolUse hooks (only when there are some: they may answer later). */
function* post(run: ToolCallRun, tool: Tool, outcome: ToolOutcome<unknown>, mapped: ToolResultBlock): Generator<unknown, undefined, unknown> {
  const { name, toolUseId } = run;
  const output = outcome.output;
  const result = mapped;
  let rewrite: { readonly output: unknown } | undefined;
  const blocks: string[] = [];
  for (const hook of run.hooks.postToolUse ?? []) {
    let answer;
    try {
      answer = yield* settle(
        hook({
          toolName: tool.name,
          toolInput: run.calledInput,
          toolUseId,
          result,
          output,
          ...(outcome.structured === undefined ? {} : { structured: outcome.structured }),
          get signal() {
            return run.signal();
          },
        }),
      );
    } catch (error) {
      // The tool already ran: keep its result, tell the model the hook failed.
      run.addContext(seamFailedText(name, 'PostToolUse hook', error));
      continue;
    }
    if (!answer) continue;
    if (answer.additionalContext) run.addContext(answer.additionalContext);
    if (answer.stopContinuation && !run.stopContinuation) run.stopContinuation = answer.stopContinuation;
    if (answer.block !== undefined) blocks.push(answer.block);
    if (answer.updatedOutput !== undefined) rewrite = { output: answer.updatedOutput };
  }
  completeCall(run, tool, outcome, result, rewrite, blocks);
  return undefined;
}

/** Steps 13 and 14: a rewritten output checked, the hooks' blocks flagged, the result emitted. */
function completeCall(
  run: ToolCallRun,
  tool: Tool,
  outcome: ToolOutcome<unknown>,
  mapped: ToolResultBlock,
  rewrite: { readonly output: unknown } | undefined,
  blocks: readonly string[],
): void {
  const name = run.name;
  let output = outcome.output;
  let result = mapped;
  run.trace('post_tool_use', (run.hooks.postToolUse?.length ?? 0) > 0 ? 'ok' : 'skipped');
  // 13. a rewritten output must pass the output schema
  if (rewrite) {
    const checked = tool.outputSchema ? tool.outputSchema.safeParse(rewrite.output) : { success: true as const, data: rewrite.output };
    if (checked.success) {
      try {
        output = checked.data;
        result = { ...result, content: render(tool, output) };
        run.trace('validate_output', 'ok');
      } catch (error) {
        run.addContext(rejectedOutputRewriteText(name, errorMessage(error)));
        run.trace('validate_output', 'failed', errorMessage(error));
      }
    } else {
      const why = checked.error.issues.map((i) => i.message).join('; ');
      run.addContext(rejectedOutputRewriteText(name, why));
      run.trace('validate_output', 'failed', why);
    }
  } else {
    run.trace('validate_output', 'skipped');
  }
  if (blocks.length > 0) result = flagged(result, blocks);
  // A rewritten output no longer matches the tool's own structured result: it is not passed on.
  run.finish(result, outcome, rewrite && output !== outcome.output ? undefined : outcome.structured);
}

/** An error tool_result for `toolUseId`: how every refused or failed call is answered, so the model always gets one. */
export function errorResult(toolUseId: string, text: string): ToolResultBlock {
  return { type: 'tool_result', tool_use_id: toolUseId, content: text, is_error: true };
}

function render(tool: Tool, output: unknown): ToolResultContent {
  const content = tool.renderResult ? tool.renderResult(output) : defaultRenderResult(output);
  return limitResultSize(content, tool.maxResultSizeChars);
}

function flagged(result: ToolResultBlock, reasons: readonly string[]): ToolResultBlock {
  const head = reasons.map(postHookBlockedText).join('\n');
  const content = result.content;
  if (content === undefined || typeof content === 'string') {
    return { ...result, is_error: true, content: content ? `${head}\n\n${content}` : head };
  }
  return { ...result, is_error: true, content: [{ type: 'text', text: head }, ...content] };
}

function isProgress(item: unknown): item is { type: 'progress'; data: unknown } {
  return typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'progress' && 'data' in item;
}

function isOutcome(item: unknown): item is ToolOutcome<unknown> {
  return typeof item === 'object' && item !== null && (item as { type?: unknown }).type === 'outcome' && 'output' in item;
}
