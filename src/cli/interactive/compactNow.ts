/**
 * `/compact [instructions]`: the context layer's compaction (src/context/compact.ts), run now
 * instead of when the window fills. Everything but the latest exchange is summarized with one
 * model call (the person's instructions added to ours), the history becomes the summary plus that
 * exchange, and a `manual` compact boundary goes into the transcript, so a resumed session
 * starts from the same compacted view.
 */
import { fromEvent, lastValueFrom, takeUntil, tap } from 'rxjs';
import { buildCompactedView, buildCompactionRequest, requestSummary } from '../../context/compact.js';
import { COMPACT_SYSTEM_PROMPT } from '../../context/compactPrompt.js';
import { modelLimits } from '../../context/models.js';
import { CHARS_PER_TOKEN, contextThresholds, estimateMessagesTokens } from '../../context/tokens.js';
import { isTurnStart } from '../../context/turns.js';
import type { TranscriptSink } from '../../loop/seams.js';
import type { MessageParam, Usage } from '../../protocol/content.js';
import type { MessagesClient } from '../../transport/types.js';

export type CompactNowResult =
  | {
      readonly type: 'compacted';
      readonly messages: MessageParam[];
      readonly preTokens: number;
      readonly postTokens: number;
      /** What the summary request used (the session's cost counts it). */
      readonly usage: Usage;
    }
  | { readonly type: 'too_short' };

export interface CompactNowOptions {
  readonly client: MessagesClient;
  readonly model: string;
  readonly messages: readonly MessageParam[];
  readonly instructions: string;
  readonly transcript: TranscriptSink;
  readonly signal: AbortSignal;
  /** For the transcript record. */
  readonly chainId: string;
  /** Awaited before the summary request (the PreCompact hooks); a failure is ignored. */
  readonly beforeCompact?: () => PromiseLike<void> | void;
}

const SUMMARY_TOKENS = 16_000;

/** The person cancelled the compaction (Esc); the history is unchanged. */
export class CompactCancelled extends Error {
  override readonly name = 'CompactCancelled';
  constructor() {
    super('compaction cancelled; the conversation is unchanged');
  }
}

/** Where the latest exchange starts (its prompt), or undefined when it is the only one. */
export function latestExchangeStart(messages: readonly MessageParam[]): number | undefined {
  for (let i = messages.length - 1; i > 0; i--) if (isTurnStart(messages[i]!)) return i;
  return undefined;
}

export async function compactNow(options: CompactNowOptions): Promise<CompactNowResult> {
  if (options.signal.aborted) throw new CompactCancelled();
  // Keep the latest exchange verbatim (its prompt, tool calls and answer), nothing before it: the
  // person asked for room now. The context layer's own plan would cut inside that exchange (at
  // its last answer, for a budget of 0) and summarize the prompt being worked on.
  const keptStart = latestExchangeStart(options.messages);
  if (keptStart === undefined) return { type: 'too_short' };
  await Promise.resolve(options.beforeCompact?.()).catch(() => undefined);
  if (options.signal.aborted) throw new CompactCancelled();
  const limits = modelLimits(options.model);
  const thresholds = contextThresholds(limits);
  const extra = options.instructions.trim();
  const instructions = extra === '' ? COMPACT_SYSTEM_PROMPT : `${COMPACT_SYSTEM_PROMPT}\n\nThe user gave these instructions for this summary:\n${extra}`;
  const request = buildCompactionRequest(options.messages.slice(0, keptStart), {
    model: options.model,
    maxTokens: Math.min(SUMMARY_TOKENS, limits.maxOutputTokens),
    maxTranscriptChars: Math.max(4_000, (thresholds.effectiveWindow - 2_000) * CHARS_PER_TOKEN),
    instructions,
  });
  // The summary's usage, read off its stream (message_start, then message_delta's cumulative counts).
  let usage: Usage = {};
  const counted: MessagesClient = {
    stream: (req, callOptions) =>
      options.client.stream(req, callOptions).pipe(
        tap((output) => {
          if (output.type === 'message_start') usage = { ...output.message.usage };
          else if (output.type === 'message_delta' && output.usage) usage = { ...usage, ...definedCounts(output.usage) };
        }),
      ),
  };
  // Unsubscribing aborts the summary request (Esc while it runs).
  const summary = await lastValueFrom(requestSummary(counted, request).pipe(takeUntil(fromEvent(options.signal, 'abort'))), {
    defaultValue: undefined,
  });
  if (summary === undefined) throw new CompactCancelled();
  const view = buildCompactedView(summary, options.messages.slice(keptStart));
  const preTokens = estimateMessagesTokens(options.messages);
  const postTokens = estimateMessagesTokens(view);
  await options.transcript.append([
    {
      type: 'compact_boundary',
      chainId: options.chainId,
      depth: 0,
      timestamp: Date.now(),
      boundary: { trigger: 'manual', preTokens, postTokens },
      messages: view,
    },
  ]);
  return { type: 'compacted', messages: view, preTokens, postTokens, usage };
}

/** A delta's counts are cumulative; the ones it leaves out (or null) keep the start's. */
function definedCounts(usage: Usage): Usage {
  return Object.fromEntries(Object.entries(usage).filter(([, v]) => v !== undefined && v !== null)) as Usage;
}

/** What `compactRun` needs of a prepared run (structurally `PreparedRun`). */
export interface CompactableRun {
  readonly client?: MessagesClient;
  readonly transcript?: TranscriptSink;
  readonly model: string;
  history: readonly MessageParam[];
  readonly preCompact?: (customInstructions: string | null) => Promise<void>;
}

/**
 * A run's manual compaction, as `/compact [instructions]` asks for it from the interactive view
 * and from a stream-json user message: its PreCompact hooks told the instructions (null when
 * none), and the run's history replaced by the compacted view. Undefined: the run has no model
 * client or transcript to compact with.
 */
export async function compactRun(
  run: CompactableRun,
  instructions: string,
  options: { readonly signal: AbortSignal; readonly chainId: string },
): Promise<CompactNowResult | undefined> {
  const { client, transcript, preCompact } = run;
  if (!client || !transcript) return undefined;
  const given = instructions.trim();
  const result = await compactNow({
    client,
    transcript,
    model: run.model,
    messages: run.history,
    instructions: given,
    ...options,
    ...(preCompact ? { beforeCompact: () => preCompact(given === '' ? null : given) } : {}),
  });
  if (result.type === 'compacted') run.history = result.messages;
  return result;
}
