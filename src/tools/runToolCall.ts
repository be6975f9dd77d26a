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
import { asyncScheduler, Observable, timer, type SchedulerLike, type Subscription } from 'rxjs';
import { isInvalidToolUse, type InvalidToolUseBlock } from '../assembly/types.js';
import type { ToolResultBlock, ToolUseBlock } from '../protocol/content.js';
import { fromMaybeAsync, type MaybeAsync } from '../../operators/internal/fromMaybeAsync.js';
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
import { drive, settle } from './maybeAsync.js';
import { closestToolNames, toRegistry, type ToolRegistry } from './registry.js';
import { defaultRenderResult, limitResultSize } from './renderResult.js';
import type { SharedContext, Tool, ToolCallContext, ToolEvent, ToolOutcome, ToolResultContent } from './types.js';
import { ToolFailure } from './toolFailure.js';

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

const EMPTY_SHARED: SharedContext = Object.freeze({});

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
    const registry = toRegistry(options.tools);
    const scheduler = options.scheduler ?? asyncScheduler;
    const shared = options.shared ?? EMPTY_SHARED;
    const hooks = options.hooks ?? {};
    const startedAt = scheduler.now();
    // Created on first use: most tools never look at their signal, and an AbortSignal is the
    // single most expensive allocation of a call (measured: ~40% of a no-op call's time).
    let controller: AbortController | undefined;
    let cut = false;
    const signal = (): AbortSignal => {
      if (!controller) {
        controller = new AbortController();
        if (cut) controller.abort();
      }
      return controller.signal;
    };
    const { id: toolUseId, name } = block;
    const additionalContext: string[] = [];
    let stopContinuation: StopContinuation | undefined;
    let deferral: { readonly accepted: boolean; readonly reason?: string } | undefined;
    let inProgress = false;
    /** The tool being called (for the structured result of a call stopped midway). */
    let runningTool: Tool | undefined;
    let finished = false;
    let currentStep: PipelineStep = 'find_tool';
    let callSubscription: Subscription | undefined;
    let timeoutSubscription: Subscription | undefined;

    const trace = (step: PipelineStep, status: PipelineTraceEntry['status'], detail?: string): void => {
      currentStep = step;
      if (!options.trace) return;
      try {
        options.trace(detail === undefined ? { toolUseId, step, status } : { toolUseId, step, status, detail });
      } catch {
        // An observer for tests and debugging: its failure must not change (or lose) the call's result.
      }
    };

    const ctx: ToolCallContext = {
      get signal() {
        return signal();
      },
      toolUseId,
      shared,
      progress: (data) => {
        if (!finished && !subscriber.closed) subscriber.next({ type: 'tool_progress', toolUseId, name, data });
      },
    };

    // Steps 14 and 15: the single exit of every path.
    const finish = (result: ToolResultBlock, outcome?: ToolOutcome<unknown>, structured?: unknown): void => {
      if (finished || subscriber.closed) return;
      finished = true;
      timeoutSubscription?.unsubscribe();
      trace('emit_result', 'ok');
      const event: ToolEvent = {
        type: 'tool_result',
        toolUseId,
        name,
        result,
        endsTurn: outcome?.endsTurn === true,
        durationMs: scheduler.now() - startedAt,
        ...(structured === undefined ? {} : { structured }),
        ...(outcome?.contextChange ? { contextChange: outcome.contextChange } : {}),
        ...(additionalContext.length > 0 ? { additionalContext: [...additionalContext] } : {}),
        ...(stopContinuation ? { stopContinuation } : {}),
        ...(deferral ? { deferral } : {}),
      };
      subscriber.next(event);
      trace('clear_in_progress', inProgress ? 'ok' : 'skipped');
      inProgress = false;
      subscriber.complete();
    };

    const fail = (step: PipelineStep, text: string, structured?: unknown): { ok: false } => {
      trace(step, 'failed', text);
      finish(errorResult(toolUseId, text), undefined, structured);
      return { ok: false };
    };

    // Stop everything the call started; the tool's late deliveries find a closed subscriber.
    const cutOff = (): void => {
      callSubscription?.unsubscribe();
      timeoutSubscription?.unsubscribe();
      if (!finished && !cut) {
        cut = true;
        controller?.abort();
      }
    };

    const onOuterAbort = (): void => {
      if (finished) return;
      const step = currentStep;
      cutOff();
      if (inProgress) fail(step, cancelledText(name), runningTool?.stoppedResult?.('interrupted'));
      else fail(step, abortedBeforeStartText(name));
    };

    function* prepare(): Generator<unknown, Prepared, unknown> {
      // 1. find the tool
      const prepared = options.prepared ?? classifyCall(block, registry);
      const tool = prepared.tool;
      if (!tool) {
        const available = registry.tools.map((t) => t.name);
        return fail('find_tool', unknownToolText(name, closestToolNames(name, registry), available));
      }
      trace('find_tool', 'ok');
      // 2. abort check: no parsing, no hooks once cancelled
      if (options.signal?.aborted) return fail('abort_check', abortedBeforeStartText(name));
      trace('abort_check', 'ok');
      // 3. JSON (assembly parsed it once; an unparseable input arrives as InvalidToolUseBlock)
      if (isInvalidToolUse(block)) return fail('parse_input', invalidJsonText(name, block.invalid.rawInput, block.invalid.reason));
      trace('parse_input', 'ok');
      // 4. schema
      const parsed = prepared.parsed;
      if (!parsed) return fail('validate_schema', toolThrewText(name, prepared.parseError ?? 'the input schema could not be checked'));
      if (!parsed.success) return fail('validate_schema', schemaIssuesText(name, parsed.error.issues, block.input));
      trace('validate_schema', 'ok');
      let input: unknown = parsed.data;
      // 5. the tool's own check
      if (tool.validateInput) {
        let verdict;
        try {
          verdict = yield* settle(tool.validateInput(input, ctx));
        } catch (error) {
          return fail('validate_input', toolThrewText(name, error));
        }
        if (!verdict.ok) return fail('validate_input', validateInputText(name, verdict.message));
        trace('validate_input', 'ok');
      } else {
        trace('validate_input', 'skipped');
      }
      // 6. PreToolUse hooks, in order; each sees the previous rewrite
      let rewrittenBy: string | undefined;
      let hookDecision: PermissionDecision | undefined;
      let hookReason: string | undefined;
      const preHooks = hooks.preToolUse ?? [];
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
                return signal();
              },
            }),
          );
        } catch (error) {
          return fail('pre_tool_use', seamFailedText(name, 'PreToolUse hook', error));
        }
        if (!answer) continue;
        if (answer.additionalContext) additionalContext.push(answer.additionalContext);
        if (answer.stopContinuation && !stopContinuation) stopContinuation = answer.stopContinuation;
        if (answer.decision === 'deny') {
          return fail('pre_tool_use', hookBlockedText(name, answer.reason ?? 'no reason given'));
        }
        if (answer.decision === 'defer' && deferral === undefined) {
          let accepted = false;
          try {
            accepted = options.mayDefer ? (yield* settle(options.mayDefer())) === true : false;
          } catch {
            accepted = false;
          }
          deferral = answer.reason !== undefined ? { accepted, reason: answer.reason } : { accepted };
          if (accepted) {
            // Not run, not answered: the placeholder result never reaches the model.
            trace('pre_tool_use', 'ok', 'deferred');
            finish(errorResult(toolUseId, deferredText(name, answer.reason)));
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
      trace('pre_tool_use', preHooks.length > 0 ? 'ok' : 'skipped');
      // 7. permission
      if (options.canUseTool) {
        let verdict;
        try {
          verdict = yield* settle(
            options.canUseTool(tool.name, input, {
              toolUseId,
              shared,
              get signal() {
                return signal();
              },
              hookDecision,
              hookReason,
            }),
          );
        } catch (error) {
          return fail('permission', seamFailedText(name, 'permission check', error));
        }
        switch (verdict.behavior) {
          case 'deny':
            return fail('permission', permissionDeniedText(name, verdict.message));
          case 'ask':
            return fail('permission', askDeniedMessage(name, verdict.message ?? hookReason));
          case 'allow':
            if (verdict.updatedInput !== undefined) {
              input = verdict.updatedInput;
              rewrittenBy = 'the permission check';
            }
            break;
          default: {
            // Only a cast or plain JS gets here: an answer we do not know must not run the call.
            const unknownAnswer: never = verdict;
            return fail('permission', seamFailedText(name, 'permission check', `it answered ${JSON.stringify(unknownAnswer)}`));
          }
        }
      } else if (hookDecision === 'ask') {
        return fail('permission', askDeniedMessage(name, hookReason));
      }
      trace('permission', 'ok');
      // 8. a rewritten input must pass the schema again
      if (rewrittenBy !== undefined) {
        let again;
        try {
          again = tool.inputSchema.safeParse(input);
        } catch (error) {
          return fail('revalidate_input', toolThrewText(name, error));
        }
        if (!again.success) return fail('revalidate_input', invalidRewriteText(name, rewrittenBy, again.error.issues, input));
        input = again.data;
        trace('revalidate_input', 'ok');
      } else {
        trace('revalidate_input', 'skipped');
      }
      return { ok: true, tool, input };
    }

    const call = (tool: Tool, input: unknown): void => {
      // 9. in progress
      inProgress = true;
      runningTool = tool;
      trace('mark_in_progress', 'ok');
      subscriber.next({ type: 'tool_start', toolUseId, name, input });
      if (subscriber.closed) return;
      // 10. call
      trace('call', 'ok');
      const timeoutMs = tool.timeoutMs ?? options.timeoutMs;
      if (timeoutMs !== undefined) {
        timeoutSubscription = timer(timeoutMs, scheduler).subscribe(() => {
          if (finished) return;
          cutOff();
          fail('call', timeoutText(name, timeoutMs), tool.stoppedResult?.('timed_out'));
        });
      }
      let last: ToolOutcome<unknown> | undefined;
      let items;
      try {
        items = fromMaybeAsync(tool.call(input, ctx) as MaybeAsync<unknown>);
      } catch (error) {
        fail('call', toolThrewText(name, error));
        return;
      }
      callSubscription = items.subscribe({
        next: (item) => {
          if (finished) return;
          if (isProgress(item)) ctx.progress(item.data);
          else last = isOutcome(item) ? item : { type: 'outcome', output: item };
        },
        error: (error: unknown) => {
          if (!finished) fail('call', toolThrewText(name, error), error instanceof ToolFailure ? error.structured : undefined);
        },
        complete: () => {
          if (finished) return;
          timeoutSubscription?.unsubscribe();
          afterCall(tool, input, last ?? { type: 'outcome', output: undefined });
        },
      });
      if (finished) callSubscription.unsubscribe();
    };

    function* post(tool: Tool, input: unknown, outcome: ToolOutcome<unknown>): Generator<unknown, void, unknown> {
      // 11. output to content
      let output = outcome.output;
      let content: ToolResultContent;
      try {
        content = render(tool, output);
      } catch (error) {
        fail('map_result', toolThrewText(name, error));
        return;
      }
      trace('map_result', 'ok');
      // 12. PostToolUse hooks
      let result: ToolResultBlock = { type: 'tool_result', tool_use_id: toolUseId, content };
      let rewrite: { readonly output: unknown } | undefined;
      const blocks: string[] = [];
      const postHooks = hooks.postToolUse ?? [];
      for (const hook of postHooks) {
        let answer;
        try {
          answer = yield* settle(
            hook({
              toolName: tool.name,
              toolInput: input,
              toolUseId,
              result,
              output,
              ...(outcome.structured === undefined ? {} : { structured: outcome.structured }),
              get signal() {
                return signal();
              },
            }),
          );
        } catch (error) {
          // The tool already ran: keep its result, tell the model the hook failed.
          additionalContext.push(seamFailedText(name, 'PostToolUse hook', error));
          continue;
        }
        if (!answer) continue;
        if (answer.additionalContext) additionalContext.push(answer.additionalContext);
        if (answer.stopContinuation && !stopContinuation) stopContinuation = answer.stopContinuation;
        if (answer.block !== undefined) blocks.push(answer.block);
        if (answer.updatedOutput !== undefined) rewrite = { output: answer.updatedOutput };
      }
      trace('post_tool_use', postHooks.length > 0 ? 'ok' : 'skipped');
      // 13. a rewritten output must pass the output schema
      if (rewrite) {
        const checked = tool.outputSchema ? tool.outputSchema.safeParse(rewrite.output) : { success: true as const, data: rewrite.output };
        if (checked.success) {
          try {
            output = checked.data;
            result = { ...result, content: render(tool, output) };
            trace('validate_output', 'ok');
          } catch (error) {
            additionalContext.push(rejectedOutputRewriteText(name, errorMessage(error)));
            trace('validate_output', 'failed', errorMessage(error));
          }
        } else {
          const why = checked.error.issues.map((i) => i.message).join('; ');
          additionalContext.push(rejectedOutputRewriteText(name, why));
          trace('validate_output', 'failed', why);
        }
      } else {
        trace('validate_output', 'skipped');
      }
      if (blocks.length > 0) result = flagged(result, blocks);
      // A rewritten output no longer matches the tool's own structured result: it is not passed on.
      finish(result, outcome, rewrite && output !== outcome.output ? undefined : outcome.structured);
    }

    const afterCall = (tool: Tool, input: unknown, outcome: ToolOutcome<unknown>): void => {
      drive(post(tool, input, outcome), () => undefined, unexpected, () => finished || subscriber.closed);
    };

    // A bug in the pipeline itself still ends in one error result, never an error notification.
    const unexpected = (error: unknown): void => {
      if (!finished) fail(currentStep, toolThrewText(name, error));
    };

    if (options.signal) {
      options.signal.addEventListener('abort', onOuterAbort, { once: true });
      subscriber.add(() => options.signal?.removeEventListener('abort', onOuterAbort));
    }
    subscriber.add(cutOff);
    drive(
      prepare(),
      (prepared) => {
        if (prepared.ok) call(prepared.tool, prepared.input);
      },
      unexpected,
      () => finished || subscriber.closed,
    );
  });
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
