/** `agentLoop` options and the dependencies tests inject. */
import type { Observable, OperatorFunction, SchedulerLike } from 'rxjs';
import type { MessageParam } from '../protocol/content.js';
import type { MessagesRequest, ThinkingConfig } from '../protocol/request.js';
import type { AssemblyOutput } from '../assembly/types.js';
import type { MessagesClient, StreamCallOptions, TransportOutput } from '../transport/types.js';
import type { SharedContext, Tool, ToolEvent } from '../tools/types.js';
import type { CanUseTool, ToolHooks } from '../tools/hooks.js';
import type { ContextGovernor, LoopHooks, TranscriptSink } from './seams.js';
import type { CostBudget, PriceTable } from './pricing.js';
import type { McpElicitationHandler } from '../mcp/elicitation.js';
import type { McpServersConfig } from '../mcp/config.js';
import type { Submission, SubmissionAck } from './runInput.js';

/** What the loop hands the tool scheduler of one iteration (a fresh one each time). */
export interface ToolSchedulerInput {
  readonly tools: readonly Tool[];
  readonly shared: SharedContext;
  readonly hooks: ToolHooks | undefined;
  readonly canUseTool: CanUseTool | undefined;
  /** The loop uses it to know whether a new submission may interrupt (SPEC §4). */
  readonly onInterruptibleChange?: (interruptible: boolean) => void;
  /** Honour a PreToolUse 'defer' for a response's only call (non-interactive runs). */
  readonly allowDefer?: boolean;
}
/** Builds the tool scheduler of one iteration; `scheduleTools` from `operators/` unless a test injects another. */
export type ToolSchedulerFactory = (input: ToolSchedulerInput) => OperatorFunction<AssemblyOutput, ToolEvent>;

/** One model request as a cold stream: the seam that replaces `client.stream` in tests and wrappers. */
export type CallModel = (request: MessagesRequest, options?: StreamCallOptions) => Observable<TransportOutput>;

/** What tests inject instead of the real client, scheduler, ids and clock, so runs are reproducible. */
export interface LoopDeps {
  /** Replaces `client.stream`: cold, one subscription = one request (with its retries). */
  readonly callModel?: CallModel;
  /** Replaces `scheduleTools` from `operators/` (tests inject fake timing). */
  readonly scheduleTools?: ToolSchedulerFactory;
  readonly uuid?: () => string;
  /** Milliseconds, for `durationMs`. Default: the scheduler's now(). */
  readonly now?: () => number;
  /** Trampoline scheduler between iterations. Default: a private trampoline per run (trampolineScheduler.ts). */
  readonly scheduler?: SchedulerLike;
}

/** The in-process hooks of a loop: loop-level (Stop, PostToolBatch, UserPromptSubmit) and per tool call. */
export interface AgentLoopHooks extends LoopHooks, ToolHooks {}

/** Options of {@link agentLoop}: the model and client, the history and prompt, the tools, the bounds and the seams. */
export interface AgentLoopOptions {
  readonly model: string;
  /** Needed unless `deps.callModel` is given. */
  readonly client?: MessagesClient;
  readonly system?: string;
  readonly tools?: readonly Tool[];
  /**
   * The tool-refresh seam (SPEC §2 step 8 "refresh the tool set"): when given, asked once at the
   * start of every iteration with `tools`; its answer is the tool set of that iteration (never
   * changed mid-request). A promise or an Observable (its first value) is waited for; a failed
   * one keeps `tools`. Return the same array while nothing changed. MCP servers (list_changed)
   * add their tools through it.
   */
  readonly refreshTools?: (tools: readonly Tool[]) => readonly Tool[] | PromiseLike<readonly Tool[]> | Observable<readonly Tool[]>;
  /** MCP servers (Claude Code's `mcpServers` shapes): connected at start, their tools added, closed at the end. */
  readonly mcpServers?: McpServersConfig;
  /** Answers an MCP server's elicitation (it asks the user mid-call); without it servers are told the client cannot be asked. */
  readonly onMcpElicitation?: McpElicitationHandler;
  /** History to continue from. */
  readonly messages?: readonly MessageParam[];
  /** uuid of the last message of `messages` (a resumed transcript's leaf), to chain new records. */
  readonly parentUuid?: string;
  /** A new user prompt appended to `messages`. */
  readonly prompt?: string | MessageParam;
  /**
   * Turns `prompt` into the message that enters the history, before the UserPromptSubmit hook
   * (MCP prompts: `/mcp__<server>__<prompt> args` becomes the server's prompt). Return the
   * message unchanged when it names no command; a rejection ends the run `turn_setup_failed`
   * with a `configuration` error carrying its message.
   */
  readonly expandPrompt?: (prompt: MessageParam, signal: AbortSignal) => MessageParam | PromiseLike<MessageParam>;
  /** Iterations that start a new turn (SPEC §1). Default: unlimited. */
  readonly maxTurns?: number;
  /** `max_tokens` of each request. Default 32000. */
  readonly maxOutputTokens?: number;
  readonly thinking?: ThinkingConfig;
  /**
   * Prompt-caching breakpoints on the system prompt, the tools and the last message (Claude
   * Code's placement; SPEC §14). Default true, as Claude Code sends them: every turn of a long
   * session would otherwise pay the full input price. `false` sends requests exactly as built
   * (the command sets it from DISABLE_PROMPT_CACHING).
   */
  readonly promptCaching?: boolean;
  readonly hooks?: AgentLoopHooks;
  readonly canUseTool?: CanUseTool;
  /** Used for the rest of the run when the primary model stays overloaded after its retries. */
  readonly fallbackModel?: string;
  /** USD cap, checked before every model call. Ignored when `budget` is given. */
  readonly maxBudgetUsd?: number;
  /** A budget shared with other loops (subagents). */
  readonly budget?: CostBudget;
  readonly prices?: PriceTable;
  /** Output tokens per user turn to keep working towards (SPEC §8). */
  readonly tokenBudget?: number;
  /** Subagents never continue on a token budget. */
  readonly isSubagent?: boolean;
  readonly contextGovernor?: ContextGovernor;
  readonly transcript?: TranscriptSink;
  /** Initial tool context. */
  readonly shared?: SharedContext;
  /** Identical consecutive tool calls refused from this count on. Default 3; 0 disables. */
  readonly repeatedToolCallLimit?: number;
  /**
   * A person is there to answer (permission prompts): a PreToolUse hook's 'defer' is then
   * ignored. Default false: a 'defer' of a response's only tool call ends the loop
   * `tool_deferred` (SPEC §3), leaving that tool_use unanswered for the caller to resolve.
   */
  readonly interactive?: boolean;
  /**
   * User input while the loop runs (SPEC §9): each submission is queued (`command_lifecycle`
   * `queued`), absorbed after the current tool batch (`started`), and settled at the terminal
   * (`completed` / `cancelled` / `discarded`); `interrupt: true` cuts the iteration when it may.
   * Subscribed with the loop; submissions after the terminal are not read.
   */
  readonly input$?: Observable<Submission>;
  /**
   * Told, synchronously as the loop reads each submission of `input$`, whether it was taken:
   * `accepted: false` once the terminal is being delivered (the input has closed; nothing was
   * queued). A `Subject` fits. A submission the loop no longer reads (after its end) gets none.
   */
  readonly inputAcks?: { next(ack: SubmissionAck): void };
  /** Aborting ends the loop with `aborted_streaming` / `aborted_tools` (a terminal is emitted). */
  readonly signal?: AbortSignal;
  /** Query tracking: defaults to a fresh uuid and 0. */
  readonly chainId?: string;
  readonly depth?: number;
  readonly deps?: LoopDeps;
}

/** `max_tokens` of each request when `maxOutputTokens` is not given. */
export const DEFAULT_MAX_OUTPUT_TOKENS = 32_000;
export const MAX_OUTPUT_TOKENS_RECOVERY_LIMIT = 3;
export const MALFORMED_TOOL_USE_RETRY_LIMIT = 1;
export const STOP_HOOK_BLOCK_CAP = 8;
export const DEFAULT_REPEATED_TOOL_CALL_LIMIT = 3;
