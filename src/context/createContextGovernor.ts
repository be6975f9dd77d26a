/**
 * The context governor (SPEC §6): before every model call it runs the layers cheapest first —
 * tool-result budget, snip, microcompact, auto-compaction — then checks the rapid-refill breaker
 * and the blocking line; after a prompt-too-long error it compacts once per user turn.
 *
 * All state (breaker counters, what was already stored, freed or compacted) lives in the
 * instance: one governor per session. Each call is cold: nothing runs before subscribe, and
 * unsubscribing aborts a summarization request without counting it as a failure.
 */
import { catchError, defer, map, mergeMap, of, type Observable } from 'rxjs';
import type { MessageParam, Usage } from '../protocol/content.js';
import type { MessagesClient } from '../transport/types.js';
import type {
  CompactBoundary,
  ContextGovernor,
  GovernorDecision,
  GovernorInput,
  GovernorNotice,
  ReactiveCompactResult,
} from '../loop/seams.js';
import type { CompactTrigger } from '../loop/types.js';
import { buildCompactedView, buildCompactionRequest, planCompaction, requestSummary } from './compact.js';
import { modelLimits, type ModelLimits, type ModelLimitsTable } from './models.js';
import { microcompact } from './microcompact.js';
import { snip } from './snip.js';
import {
  CHARS_PER_TOKEN,
  contextThresholds,
  countTokens,
  estimateMessageTokens,
  estimateMessagesTokens,
  estimateTextTokens,
  type ContextThresholds,
} from './tokens.js';
import {
  applyToolResultBudget,
  createFileResultStore,
  createToolResultBudgetState,
  type ToolResultBudgetState,
} from './toolResultBudget.js';
import { COMPACT_SYSTEM_PROMPT } from './compactPrompt.js';
import { assertNever } from '../util/assertNever.js';

/** What the governor needs to know about a tool: its names and its result limit. */
export interface ToolResultLimit {
  readonly name: string;
  readonly aliases?: readonly string[];
  readonly maxResultSizeChars?: number;
}

/** Options of {@link createContextGovernor}: the model limits, the client for summaries, and which layers run. */
export interface ContextGovernorOptions {
  /** Used for summarization calls. */
  readonly client: MessagesClient;
  /** The model that writes summaries; default: the model of the governed call. */
  readonly compactModel?: string;
  /** Extra or overriding entries of the per-model limits table (matched by id prefix). */
  readonly modelLimits?: ModelLimitsTable;
  /** Limits for models in no table (default 200k window, 32k output). */
  readonly defaultModelLimits?: ModelLimits;

  /** Layer 0. Where oversized tool results are stored (`<sessionDir>/tool-results/<id>.txt`). */
  readonly sessionDir?: string;
  /** Layer 0. Replaces the file store (must return an absolute path the Read tool can open). */
  readonly storeToolResult?: (toolUseId: string, text: string) => string;
  /** Layer 0. The tools and their `maxResultSizeChars`; a tool without a limit is exempt. */
  readonly tools?: readonly ToolResultLimit[];
  /** Layer 0. Characters of an oversized result kept in view (default 2,000). */
  readonly toolResultPreviewChars?: number;

  /** Layer 1 (opt-in: what it drops is gone from the model's view). */
  readonly snip?: { readonly maxTurns: number };
  /** Layer 2 (opt-in: clearing old results changes early messages, which costs cache hits). */
  readonly microcompact?: { readonly keepRecentRounds: number; readonly shouldClear?: (toolName: string) => boolean };

  /** Layer 3. Default true. */
  readonly autoCompact?: boolean;
  /**
   * Estimated tokens of recent history kept verbatim after a compaction (default: a quarter of the
   * effective window, at most 40k). After a prompt-too-long error that reports the prompt's size,
   * it is scaled down by how far our estimate fell short of that size.
   */
  readonly keepRecentTokens?: number;
  /** `max_tokens` of the summarization call (default 16k, at most the model's output limit). */
  readonly maxSummaryTokens?: number;
  /** Replaces our summarization instructions. */
  readonly compactInstructions?: string;
  /** Consecutive auto-compaction failures after which it is not tried again (default 3). */
  readonly maxConsecutiveFailures?: number;
  /**
   * Waited for before each summarization request (automatic or reactive), once a compaction is
   * planned: the command runs its PreCompact hooks here. A failure is ignored.
   */
  readonly beforeCompact?: (trigger: CompactTrigger) => PromiseLike<void> | void;
}

/**
 * Auto-compaction failures in a row after which the governor stops trying (`maxConsecutiveFailures`),
 * so a broken summarizer is not paid for on every call.
 */
export const DEFAULT_MAX_CONSECUTIVE_COMPACT_FAILURES = 3;
/** `max_tokens` of the summarization call when `maxSummaryTokens` is not given (capped by the model's output limit). */
export const DEFAULT_MAX_SUMMARY_TOKENS = 16_000;
/** The cap on the default verbatim tail of a compaction (otherwise a quarter of the effective window). */
export const MAX_KEEP_RECENT_TOKENS = 40_000;

/** Mutable per-instance state, changed only in the places marked below. */
interface GovernorState {
  readonly budget: ToolResultBudgetState;
  /** Messages whose removal (snip) or clearing (microcompact) was already subtracted once. */
  readonly freedCounted: WeakSet<MessageParam>;
  consecutiveFailures: number;
  autoCompactDisabled: boolean;
  /** The previous beforeCall (or a reactive compaction since) compacted. */
  justCompacted: boolean;
  /** The usage that was current when the history was last compacted: it describes the old history. */
  staleUsage: Usage | undefined;
  /** The messages of the last compacted view: a usage whose response is one of them predates it. */
  compactedMembers: WeakSet<MessageParam>;
  /** chainId of the user turn that already had its reactive compaction. */
  reactiveChainId: string | undefined;
}

type CompactOutcome =
  | { readonly type: 'compacted'; readonly messages: MessageParam[]; readonly boundary: CompactBoundary }
  | { readonly type: 'too_short' }
  | { readonly type: 'failed'; readonly error: string };

/** Creates the context governor the loop consults before every model call and after a prompt-too-long error (SPEC §6). */
export function createContextGovernor(options: ContextGovernorOptions): ContextGovernor {
  const state: GovernorState = {
    budget: createToolResultBudgetState(),
    freedCounted: new WeakSet(),
    consecutiveFailures: 0,
    autoCompactDisabled: false,
    justCompacted: false,
    staleUsage: undefined,
    compactedMembers: new WeakSet(),
    reactiveChainId: undefined,
  };
  const maxFailures = options.maxConsecutiveFailures ?? DEFAULT_MAX_CONSECUTIVE_COMPACT_FAILURES;
  const resultLimit = toolLimitLookup(options.tools ?? []);
  const store = options.storeToolResult ?? (options.sessionDir !== undefined ? createFileResultStore(options.sessionDir) : undefined);

  const limitsOf = (input: GovernorInput): { limits: ModelLimits; thresholds: ContextThresholds } => {
    const table = modelLimits(input.model, options.modelLimits, options.defaultModelLimits);
    // The room reserved for the answer is what this request may produce (its max_tokens).
    const maxOutputTokens = input.maxOutputTokens > 0 ? Math.min(input.maxOutputTokens, table.maxOutputTokens) : table.maxOutputTokens;
    const limits = { contextWindow: table.contextWindow, maxOutputTokens };
    return { limits, thresholds: contextThresholds(limits) };
  };

  /**
   * The reported usage, unless it describes the history from before the last compaction (a
   * loop that kept its old usage after adopting the compacted view). Identity decides when the
   * loop passes the same object; otherwise equal numbers plus a covered response that already
   * existed before the compaction.
   */
  const usableUsage = (input: GovernorInput): Usage | undefined => {
    const usage = input.lastUsage;
    if (usage === undefined || state.staleUsage === undefined) return usage;
    if (usage === state.staleUsage) return undefined;
    const covered = input.messages[input.messagesSinceUsage - 1];
    const predates = covered === undefined || state.compactedMembers.has(covered);
    return predates && sameUsage(usage, state.staleUsage) ? undefined : usage;
  };

  /** Layers 0–2: synchronous, no model call. Returns the view, its token count and notices. */
  const cheapLayers = (input: GovernorInput, notices: GovernorNotice[]): { messages: readonly MessageParam[]; tokens: number; preTokens: number } => {
    let messages = input.messages;
    if (store !== undefined) {
      const budgeted = applyToolResultBudget(messages, state.budget, {
        maxResultSizeChars: resultLimit,
        store,
        ...(options.toolResultPreviewChars !== undefined ? { previewChars: options.toolResultPreviewChars } : {}),
      });
      messages = budgeted.messages;
      for (const failure of budgeted.failed) {
        notices.push({
          type: 'warning',
          code: 'tool_result_not_stored',
          message: `The oversized result of ${failure.toolUseId} could not be stored aside (${failure.error}); it stays in context whole.`,
        });
      }
    }
    // Layer 0 keeps indexes, so the reported usage still lines up with `messagesSinceUsage`.
    const lastUsage = usableUsage(input);
    const since = Math.min(Math.max(0, input.messagesSinceUsage), messages.length);
    const preTokens = countTokens({ messages, lastUsage, messagesSinceUsage: since });
    let tokens = preTokens;

    // How a layer's savings enter the count. Without usage the view is estimated whole, so the
    // count is simply re-estimated. With usage, the usage describes the view that was last sent:
    // a message dropped or cleared then (and dropped again now, when the loop keeps its full
    // history) is already absent from it, so each message's saving is subtracted only once.
    const recount = (
      before: readonly MessageParam[],
      after: readonly MessageParam[],
      changed: Iterable<number>,
      removed: number,
    ): { readonly tokens: number; readonly fresh: boolean } => {
      let freed = 0;
      let fresh = false;
      for (let i = 0; i < removed; i++) {
        const message = before[i]!;
        if (state.freedCounted.has(message)) continue;
        state.freedCounted.add(message);
        fresh = true;
        freed += estimateMessageTokens(message);
      }
      for (const i of changed) {
        const message = before[i]!;
        if (state.freedCounted.has(message)) continue;
        state.freedCounted.add(message);
        fresh = true;
        freed += estimateMessageTokens(message) - estimateMessageTokens(after[i]!);
      }
      return { tokens: lastUsage === undefined ? estimateMessagesTokens(after) : tokens - freed, fresh };
    };

    // A boundary is reported when a layer removes something for the first time, not again on
    // every call of a loop that keeps its full history and has the same messages dropped anew.
    if (options.snip) {
      const snipped = snip(messages, options.snip);
      if (snipped.removedMessages > 0) {
        const before = tokens;
        const counted = recount(messages, snipped.messages, [], snipped.removedMessages);
        tokens = counted.tokens;
        messages = snipped.messages;
        if (counted.fresh) {
          notices.push({ type: 'compact_boundary', boundary: { trigger: 'snip', preTokens: before, postTokens: tokens } });
        }
      }
    }
    if (options.microcompact) {
      const cleared = microcompact(messages, options.microcompact);
      if (cleared.clearedResults > 0) {
        const before = tokens;
        const counted = recount(messages, cleared.messages, cleared.changedIndexes, 0);
        tokens = counted.tokens;
        messages = cleared.messages;
        if (counted.fresh) {
          notices.push({ type: 'compact_boundary', boundary: { trigger: 'microcompact', preTokens: before, postTokens: tokens } });
        }
      }
    }
    return { messages, tokens, preTokens };
  };

  const compact = (
    messages: readonly MessageParam[],
    input: GovernorInput,
    limits: ModelLimits,
    thresholds: ContextThresholds,
    trigger: CompactTrigger,
    preTokens: number,
    reportedTokens?: number,
  ): Observable<CompactOutcome> =>
    defer(() => {
      const keepRecentTokens = keepBudgetInEstimate(
        options.keepRecentTokens ?? Math.min(MAX_KEEP_RECENT_TOKENS, Math.floor(thresholds.effectiveWindow / 4)),
        messages,
        reportedTokens,
      );
      const plan = planCompaction(messages, keepRecentTokens);
      if (plan === undefined) return of<CompactOutcome>({ type: 'too_short' });
      const maxTokens = Math.min(options.maxSummaryTokens ?? DEFAULT_MAX_SUMMARY_TOKENS, limits.maxOutputTokens);
      const instructions = options.compactInstructions ?? COMPACT_SYSTEM_PROMPT;
      // The transcript must fit the summarizer's window, with its instructions and some framing.
      const roomTokens = thresholds.effectiveWindow - estimateTextTokens(instructions.length) - 1_000;
      const request = buildCompactionRequest(messages.slice(0, plan.keptStart), {
        model: options.compactModel ?? input.model,
        maxTokens,
        maxTranscriptChars: Math.max(4_000, roomTokens * CHARS_PER_TOKEN),
        instructions,
      });
      const before = defer(async () => {
        await Promise.resolve(options.beforeCompact?.(trigger)).catch(() => undefined);
      });
      return before.pipe(
        mergeMap(() => requestSummary(options.client, request)),
        map((summary): CompactOutcome => {
          const view = buildCompactedView(summary, messages.slice(plan.keptStart));
          const postTokens = estimateMessagesTokens(view);
          return { type: 'compacted', messages: view, boundary: { trigger, preTokens, postTokens } };
        }),
        catchError((error: unknown) =>
          of<CompactOutcome>({ type: 'failed', error: error instanceof Error ? error.message : String(error) }),
        ),
      );
    });

  /** Bookkeeping of a successful compaction (auto or reactive). */
  const recordCompaction = (input: GovernorInput, view: readonly MessageParam[]): void => {
    state.justCompacted = true;
    state.consecutiveFailures = 0;
    state.staleUsage = input.lastUsage;
    state.compactedMembers = new WeakSet(view);
    for (const message of input.messages) state.compactedMembers.add(message);
  };

  const beforeCall = (input: GovernorInput): Observable<GovernorDecision> =>
    defer(() => {
      const { limits, thresholds } = limitsOf(input);
      const notices: GovernorNotice[] = [];
      const { messages, tokens } = cheapLayers(input, notices);
      const refilledAfterCompaction = state.justCompacted;
      state.justCompacted = false;
      const withNotices = <D extends GovernorDecision>(decision: D): D =>
        notices.length > 0 ? { ...decision, notices } : decision;

      if (tokens < thresholds.autoCompactAt) return of(withNotices({ type: 'ok', messages }));

      if (refilledAfterCompaction) {
        return of(withNotices({ type: 'rapid_refill_breaker', message: rapidRefillMessage(tokens, thresholds) }));
      }

      const blockingOrOk = (why: string): GovernorDecision =>
        tokens >= thresholds.blockingAt
          ? withNotices({ type: 'blocking_limit', message: blockingMessage(tokens, thresholds, input.model, why) })
          : withNotices({ type: 'ok', messages });

      if (options.autoCompact === false) return of(blockingOrOk('automatic compaction is turned off'));
      if (state.autoCompactDisabled) {
        return of(blockingOrOk(`automatic compaction was stopped after ${maxFailures} consecutive failures`));
      }

      return compact(messages, input, limits, thresholds, 'auto', tokens).pipe(
        map((outcome): GovernorDecision => {
          switch (outcome.type) {
            case 'compacted':
              recordCompaction(input, outcome.messages);
              if (outcome.boundary.postTokens >= thresholds.autoCompactAt) {
                // The summary plus the kept messages are already over the line: compacting again
                // next call would only burn requests.
                return withNotices({
                  type: 'rapid_refill_breaker',
                  message: rapidRefillMessage(outcome.boundary.postTokens, thresholds),
                });
              }
              return withNotices({ type: 'compacted', messages: outcome.messages, boundary: outcome.boundary });
            case 'too_short':
              return blockingOrOk('the conversation is too short to compact');
            case 'failed': {
              state.consecutiveFailures++;
              notices.push({
                type: 'warning',
                code: 'autocompact_failed',
                message: `Automatic compaction failed (${state.consecutiveFailures} in a row): ${outcome.error}`,
              });
              if (state.consecutiveFailures >= maxFailures) {
                state.autoCompactDisabled = true;
                notices.push({
                  type: 'warning',
                  code: 'autocompact_disabled',
                  message: `Automatic compaction failed ${state.consecutiveFailures} times in a row and will not be tried again in this session.`,
                });
              }
              return blockingOrOk(`compaction failed: ${outcome.error}`);
            }
            default:
              return assertNever(outcome, 'compaction outcome');
          }
        }),
      );
    });

  const reactiveCompact = (input: GovernorInput & { readonly error: string }): Observable<ReactiveCompactResult> =>
    defer(() => {
      if (state.reactiveChainId === input.chainId) {
        return of<ReactiveCompactResult>({
          type: 'failed',
          message: `${promptTooLongLead(input.error)} The conversation was already compacted once in this turn, and compacting again would not help.`,
        });
      }
      state.reactiveChainId = input.chainId;
      const { limits, thresholds } = limitsOf(input);
      const notices: GovernorNotice[] = [];
      const { messages, preTokens } = cheapLayers(input, notices);
      const withNotices = (result: ReactiveCompactResult): ReactiveCompactResult =>
        notices.length > 0 ? { ...result, notices } : result;
      return compact(messages, input, limits, thresholds, 'reactive', preTokens, reportedPromptTokens(input.error)).pipe(
        map((outcome): ReactiveCompactResult => {
          switch (outcome.type) {
            case 'compacted':
              recordCompaction(input, outcome.messages);
              return withNotices({ type: 'compacted', messages: outcome.messages, boundary: outcome.boundary });
            case 'too_short':
              return withNotices({
                type: 'failed',
                message: `${promptTooLongLead(input.error)} Compaction could not help: the conversation is too short to compact (it is a single exchange), so the prompt itself must be made shorter.`,
              });
            case 'failed':
              return withNotices({
                type: 'failed',
                message: `${promptTooLongLead(input.error)} Compacting the conversation failed: ${outcome.error}`,
              });
            default:
              return assertNever(outcome, 'compaction outcome');
          }
        }),
      );
    });

  return { beforeCall, reactiveCompact };
}

function toolLimitLookup(tools: readonly ToolResultLimit[]): (toolName: string) => number | undefined {
  const limits = new Map<string, number>();
  for (const tool of tools) {
    if (tool.maxResultSizeChars === undefined) continue;
    limits.set(tool.name, tool.maxResultSizeChars);
    for (const alias of tool.aliases ?? []) limits.set(alias, tool.maxResultSizeChars);
  }
  return (toolName) => limits.get(toolName);
}

function sameUsage(a: Usage, b: Usage): boolean {
  return (
    a === b ||
    ((a.input_tokens ?? 0) === (b.input_tokens ?? 0) &&
      (a.output_tokens ?? 0) === (b.output_tokens ?? 0) &&
      (a.cache_read_input_tokens ?? 0) === (b.cache_read_input_tokens ?? 0) &&
      (a.cache_creation_input_tokens ?? 0) === (b.cache_creation_input_tokens ?? 0))
  );
}

/** The prompt size the server reported in its prompt-too-long error ("250000 tokens > 200000 maximum"), if it did. */
export function reportedPromptTokens(error: string): number | undefined {
  const match = /(\d+)\s*tokens?\s*>\s*\d+/i.exec(error);
  const tokens = match ? Number(match[1]) : NaN;
  return Number.isFinite(tokens) && tokens > 0 ? tokens : undefined;
}

/**
 * The kept-verbatim budget in our estimate's units. When the server counted the history at more
 * than we estimate, our estimate is low by that ratio: keeping `keep` estimated tokens would keep
 * far more real ones (with a tiny estimate, nearly the whole history, and the retry fails again).
 */
function keepBudgetInEstimate(keep: number, messages: readonly MessageParam[], reportedTokens: number | undefined): number {
  if (reportedTokens === undefined) return keep;
  const estimated = estimateMessagesTokens(messages);
  return estimated > 0 && estimated < reportedTokens ? Math.floor((keep * estimated) / reportedTokens) : keep;
}

function promptTooLongLead(error: string): string {
  return `The prompt is too long for the model (${error.trim() || 'prompt too long'}).`;
}

function blockingMessage(tokens: number, thresholds: ContextThresholds, model: string, why: string): string {
  return (
    `The conversation holds about ${tokens} tokens, past the limit of ${thresholds.blockingAt} for ${model} ` +
    `(context window ${thresholds.contextWindow}), and ${why}. No request was sent. ` +
    'Start a new session or shorten the history.'
  );
}

function rapidRefillMessage(tokens: number, thresholds: ContextThresholds): string {
  return (
    `The context filled up again right after it was compacted (about ${tokens} tokens, compaction threshold ` +
    `${thresholds.autoCompactAt}). Compacting again would not make room, so the turn stops here. ` +
    'Large tool outputs or attachments are the usual cause: ask for smaller pieces.'
  );
}
