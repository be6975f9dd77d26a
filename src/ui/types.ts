/**
 * The view model of a run, as every UI renders it: `AgentView`, built by the pure `reduceView`
 * from the loop's events (and the agent tree's, and the host's permission events). Every object
 * is immutable and shared between successive views wherever it did not change, so a renderer can
 * skip a part by identity (`prev === next`).
 *
 * The shape follows what a person sees: user turns (one prompt until its terminal), each a list
 * of items (messages, compaction boundaries, notices); a message is a list of parts (text,
 * thinking, tool calls). A tool call carries its whole life: input, status, progress, result,
 * duration, an Edit/Write diff and, for an Agent call, the subagent's own nested view.
 */
import type { ElicitationField } from '../mcp/elicitation.js';
import type { MessageParam } from '../protocol/content.js';
import type { CompactTrigger, LoopError, LoopEvent, TerminalReason, UsageTotals, UserMessageReason } from '../loop/types.js';

/** A tool call's life: the block closed (`pending`, maybe awaiting approval), it ran, it ended one way. */
export type ToolStatus = 'pending' | 'running' | 'done' | 'error' | 'cancelled';

export interface TextPart {
  readonly kind: 'text';
  readonly key: string;
  /** The content block index in its message. */
  readonly blockIndex: number;
  readonly text: string;
  readonly streaming: boolean;
}

export interface ThinkingPart {
  readonly kind: 'thinking';
  readonly key: string;
  readonly blockIndex: number;
  readonly text: string;
  readonly streaming: boolean;
  /** The model's thinking was redacted: there is no text to show. */
  readonly redacted: boolean;
}

/** One line of a diff: kept context, removed or added. */
export interface DiffLine {
  readonly sign: ' ' | '-' | '+';
  readonly text: string;
}

/** A subagent started by an Agent call, with its own conversation. */
export interface SubagentView {
  readonly agentId: string;
  readonly agentType: string;
  readonly background: boolean;
  readonly depth: number;
  readonly view: AgentView;
}

export interface ToolResultView {
  readonly text: string;
  readonly isError: boolean;
}

export interface ToolPart {
  readonly kind: 'tool';
  readonly key: string;
  readonly blockIndex: number;
  /** The tool_use id. */
  readonly id: string;
  readonly name: string;
  readonly status: ToolStatus;
  /** The parsed input (`{}` until the block closed). */
  readonly input: unknown;
  /** The raw input JSON while it streams ('' once parsed). */
  readonly partialInput: string;
  /** When it started running (the stamp given to `reduceView`), for a live elapsed time. */
  readonly startedAt: number | undefined;
  readonly durationMs: number | undefined;
  /** The latest progress reports (at most {@link MAX_PROGRESS}), oldest first; subagent events are not progress. */
  readonly progress: readonly unknown[];
  readonly result: ToolResultView | undefined;
  /** Edit and Write calls: what changes in the file. */
  readonly diff: readonly DiffLine[] | undefined;
  readonly subagent: SubagentView | undefined;
}

export type Part = TextPart | ThinkingPart | ToolPart;

export interface MessageView {
  readonly kind: 'message';
  readonly key: string;
  readonly role: 'user' | 'assistant';
  /** The history uuid, once the message entered the history (tombstones name it). */
  readonly uuid: string | undefined;
  /** The API message id (assistant messages), to pair the streamed message with the complete one. */
  readonly apiId: string | undefined;
  readonly model: string | undefined;
  readonly reason: UserMessageReason | undefined;
  readonly parts: readonly Part[];
  readonly streaming: boolean;
  /** A streamed response's tokens so far (see `StreamUsage`); absent for other messages. */
  readonly streamUsage?: StreamUsage;
}

/**
 * The tokens of a response while it streams. The API reports the input at `message_start` and
 * the output only at its end (`message_delta`), so until then the output is estimated from the
 * characters streamed (text, thinking, tool input) at 4 per token, and `estimated` says so.
 */
export interface StreamUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly estimated: boolean;
  /** Characters streamed so far (what the estimate is made from). */
  readonly streamedChars: number;
  /** What the response's input costs (known at `message_start`; 0 for a model without a price). */
  readonly inputCostUsd: number;
  /** The model's output price, for the live cost of `outputTokens`. */
  readonly outputUsdPerMTok: number;
}

export interface BoundaryItem {
  readonly kind: 'compact_boundary';
  readonly key: string;
  readonly trigger: CompactTrigger;
  readonly preTokens: number;
  readonly postTokens: number;
}

export interface NoticeItem {
  readonly kind: 'notice';
  readonly key: string;
  readonly level: 'warning' | 'retry';
  readonly text: string;
  readonly code: string | undefined;
}

export type TurnItem = MessageView | BoundaryItem | NoticeItem;

/** How a run ended, as the view shows it. */
export interface TerminalSummary {
  readonly reason: TerminalReason;
  readonly turnCount: number;
  readonly usage: UsageTotals;
  readonly costUsd: number;
  readonly durationMs: number;
  readonly error: LoopError | undefined;
  /** What a turn without a model call said (a local command such as /compact: its outcome). */
  readonly note?: string;
}

/** One user turn: from its prompt until its terminal. */
export interface TurnView {
  readonly key: string;
  readonly items: readonly TurnItem[];
  /** The loop's iteration count so far (from `iteration_start`). */
  readonly iterations: number;
  readonly terminal: TerminalSummary | undefined;
  /** The conversation a resumed session started from: ended, with no terminal of its own. */
  readonly fromHistory: boolean;
}

/** A tool call waiting for a person's answer. */
export interface PermissionView {
  readonly requestId: string;
  readonly toolUseId: string;
  readonly toolName: string;
  readonly input: unknown;
  readonly reason: string;
}

/** An MCP server's question (form elicitation) waiting for an answer. */
export interface ElicitationView {
  readonly requestId: string;
  readonly server: string;
  readonly message: string;
  readonly fields: readonly ElicitationField[];
}

export interface AgentView {
  readonly turns: readonly TurnView[];
  readonly permissions: readonly PermissionView[];
  /** MCP servers' questions waiting for an answer, oldest first. */
  readonly elicitations: readonly ElicitationView[];
  /** True from the first event of a run until its terminal. */
  readonly running: boolean;
  /** Tokens of every completed model response so far (ended runs: their terminal's totals). */
  readonly usage: UsageTotals;
  readonly costUsd: number;
  /** The last run's ending. */
  readonly terminal: TerminalSummary | undefined;
  /** Bookkeeping for the reducer (keys, where each tool call lives, totals of ended runs). */
  readonly internal: ViewInternal;
}

export interface ViewInternal {
  readonly nextKey: number;
  /** tool_use id -> index of the turn that holds it. */
  readonly toolTurn: Readonly<Record<string, number>>;
  readonly settledUsage: UsageTotals;
  readonly settledCostUsd: number;
}

/** Host events besides the loop's: a permission question surfaced by `canUseTool`, and its answer. */
export type PermissionEvent =
  | {
      readonly type: 'permission_request';
      readonly requestId: string;
      readonly toolUseId: string;
      readonly toolName: string;
      readonly input: unknown;
      readonly reason: string;
    }
  | {
      readonly type: 'permission_settled';
      readonly requestId: string;
      readonly behavior: 'allow' | 'deny' | 'cancelled';
    };

/** Host events: an MCP server asked the user (form elicitation), and how it was settled. */
export type ElicitationEvent =
  | ({ readonly type: 'elicitation_request' } & ElicitationView)
  | { readonly type: 'elicitation_settled'; readonly requestId: string; readonly action: 'accept' | 'decline' | 'cancel' };

/** The earlier conversation of a resumed session, shown before its new turns. */
export interface HistoryEvent {
  readonly type: 'history';
  readonly messages: readonly MessageParam[];
}

/**
 * A whole view, standing for every event before it: a host that keeps a capped log folds its
 * older events into one (see src/serve/eventLog.ts). It replaces the view it is folded into.
 */
export interface ViewSnapshotEvent {
  readonly type: 'view_snapshot';
  readonly view: AgentView;
}

/** What `reduceView` folds: the loop's (and the tree's) events, the host's permission, history and snapshot events. */
export type ViewEvent = LoopEvent | PermissionEvent | ElicitationEvent | HistoryEvent | ViewSnapshotEvent;

/** An event with the time it happened (ms since epoch), as the server ships them. */
export interface StampedEvent {
  readonly at: number;
  readonly event: ViewEvent;
}

export const MAX_PROGRESS = 20;
