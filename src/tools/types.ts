/**
 * The tool contract (SPEC §4). `defineTool` (src/tools/defineTool.ts) turns a `ToolSpec` into a
 * `Tool`: defaults filled in, the JSON Schema computed once.
 */
import type { Observable } from 'rxjs';
import type { z } from 'zod';
import type { ImageBlock, TextBlock, ToolResultBlock, ToolUseBlock } from '../protocol/content.js';

/**
 * State shared by the tools of a session (working directory, read-file tracking, ...). Tools see
 * it read-only; they change it only by returning a `contextChange`, which the scheduler merges
 * for unsafe tools, in order (SPEC §4).
 */
export type SharedContext = Readonly<Record<string, unknown>>;

/** A pure update of the shared context, returned by a tool and applied by the scheduler (unsafe tools, in order). */
export type ContextChange = (shared: SharedContext) => SharedContext;

/**
 * What a tool's `call` receives besides its input: the abort signal, its call id, the shared context
 * and a progress channel.
 */
export interface ToolCallContext {
  /** Aborted on unsubscribe, interrupt or timeout. A tool that ignores it is still cut off. */
  readonly signal: AbortSignal;
  readonly toolUseId: string;
  readonly shared: SharedContext;
  /** Report progress; consumers see a `tool_progress` event at once. */
  progress(data: unknown): void;
}

/** What a tool produces: the output and, optionally, effects on the loop. */
export interface ToolOutcome<O> {
  readonly type: 'outcome';
  readonly output: O;
  readonly contextChange?: ContextChange;
  /** The turn ends after this batch, with no further model call (SPEC §2 step 8). */
  readonly endsTurn?: boolean;
  /**
   * The result as data for programs (never sent to the model, which sees `output` rendered):
   * e.g. Bash's `{ stdout, stderr, interrupted }`. Carried on the `tool_result` event; print
   * mode shows it as stream-json's `tool_use_result`, and PostToolUse hooks get it as
   * `tool_response`, as Claude Code's built-in tools give theirs.
   */
  readonly structured?: unknown;
}

/** Items an AsyncIterable or Observable tool may emit. The last `outcome` (or value) wins. */
export type ToolYield<O> = { readonly type: 'progress'; readonly data: unknown } | ToolOutcome<O>;

/**
 * Anything a tool's `call` may return: a value, an outcome, a Promise of either, or a stream of
 * progress and outcomes.
 */
export type ToolCallReturn<O> =
  | O
  | ToolOutcome<O>
  | Promise<O | ToolOutcome<O>>
  | AsyncIterable<ToolYield<O>>
  | Observable<ToolYield<O>>;

/** The answer of `validateInput`: `message` goes back to the model as an error result. */
export type ValidationResult = { readonly ok: true } | { readonly ok: false; readonly message: string };

/** What happens to a running call when the user interrupts: 'cancel' stops it, 'block' lets it finish. */
export type InterruptBehavior = 'cancel' | 'block';

/** What a tool result may hold: text, or text and image blocks. */
export type ToolResultContent = string | Array<TextBlock | ImageBlock>;

/**
 * What you write to define a tool (see `defineTool`): name, description, input schema, concurrency and
 * the call itself.
 */
export interface ToolSpec<I, O> {
  readonly name: string;
  /** Other names the model may use for the same tool. */
  readonly aliases?: readonly string[];
  readonly description: string;
  /** Should be a strict object schema so unexpected parameters are reported to the model. */
  readonly inputSchema: z.ZodType<I>;
  readonly outputSchema?: z.ZodType<O>;
  /** A function that throws counts as `false`. */
  readonly isConcurrencySafe: boolean | ((input: I) => boolean);
  /** Default 'block'. */
  readonly interruptBehavior?: InterruptBehavior | ((input: I) => InterruptBehavior);
  readonly validateInput?: (input: I, ctx: ToolCallContext) => ValidationResult | Promise<ValidationResult>;
  /** Results longer than this are cut with a marker saying how much was cut. */
  readonly maxResultSizeChars?: number;
  readonly timeoutMs?: number;
  call(input: I, ctx: ToolCallContext): ToolCallReturn<O>;
  /** Output to tool_result content. Default: strings as they are, anything else as JSON. */
  readonly renderResult?: (output: O) => ToolResultContent;
  /**
   * The structured result (see `ToolOutcome.structured`) of a call the pipeline stopped while it
   * ran: an interrupt, or the pipeline's timeout. Bash's says `interrupted: true`. Absent: none.
   */
  readonly stoppedResult?: (how: 'interrupted' | 'timed_out') => unknown;
}

/** A defined tool. `I`/`O` are erased to `unknown` where tools of many kinds are held together. */
export interface Tool<I = any, O = any> extends ToolSpec<I, O> {
  readonly interruptBehavior: InterruptBehavior | ((input: I) => InterruptBehavior);
  /** The JSON Schema sent to the model, computed once from `inputSchema`. */
  readonly jsonSchema: { readonly type: 'object'; readonly [key: string]: unknown };
}

/** Events of tool execution; the loop interleaves them with the model's stream (drain ticks). */
export type ToolEvent =
  | { readonly type: 'tool_start'; readonly toolUseId: string; readonly name: string; readonly input: unknown }
  | { readonly type: 'tool_progress'; readonly toolUseId: string; readonly name: string; readonly data: unknown }
  | {
      readonly type: 'tool_result';
      readonly toolUseId: string;
      readonly name: string;
      readonly result: ToolResultBlock;
      readonly endsTurn: boolean;
      readonly durationMs: number;
      /**
       * The tool's structured result (see `ToolOutcome.structured`); on an error result only what
       * a `ToolFailure` or the tool's `stoppedResult` gave. Absent for plain tools.
       */
      readonly structured?: unknown;
      /** Returned by the tool; the scheduler merges it only for unsafe tools, in order. */
      readonly contextChange?: ContextChange;
      /** Texts from PreToolUse/PostToolUse hooks for the model, to send next to the result. */
      readonly additionalContext?: readonly string[];
      /** A hook asked to stop the loop after this batch. */
      readonly stopContinuation?: { readonly reason: string };
      /**
       * A PreToolUse hook answered 'defer'. `accepted`: the call was not run and `result` is only
       * a placeholder (the loop ends `tool_deferred`); otherwise the answer was ignored (the call
       * went on) and the loop reports a warning.
       */
      readonly deferral?: { readonly accepted: boolean; readonly reason?: string };
    }
  | {
      /** Last event of a batch: one result per tool_use, in the order of the tool_use blocks. */
      readonly type: 'tool_batch';
      readonly results: readonly ToolResultBlock[];
      readonly endsTurn: boolean;
      /** The shared context after the unsafe tools' changes, in order. */
      readonly shared: SharedContext;
      /** Set when a PreToolUse/PostToolUse hook asked to stop continuation. */
      readonly stopContinuation?: { readonly reason: string };
      /** Hook texts for the model, in tool_use order; send them after the tool_result blocks. */
      readonly additionalContext?: readonly { readonly toolUseId: string; readonly text: string }[];
      /** The batch's only call was deferred by a PreToolUse hook: it was not run (its result is a placeholder). */
      readonly deferred?: { readonly toolUseId: string; readonly reason?: string };
    };

export type { ToolUseBlock };
