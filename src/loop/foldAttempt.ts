/**
 * `foldAttempt`: one model attempt (its response and its tools) folded into data, event by event.
 * A pure reducer, used through `scan` by the model phase; it replaces the mutable bookkeeping
 * the iteration used to keep, and says which loop events each input produces.
 */
import { isInvalidToolUse, type AssemblyOutput, type InvalidToolUseBlock } from '../assembly/types.js';
import type { AssistantContentBlock, AssistantMessage, ToolResultBlock, ToolUseBlock } from '../protocol/content.js';
import type { ToolEvent } from '../tools/types.js';
import { assertNever } from '../util/assertNever.js';
import type { ToolBatch } from './decision.js';
import { assistantMessageEvent, eventOf, modelEvent, toolProgressEvent, toolResultEvent, toolStartEvent, warningEvent } from './events.js';
import { errorResult } from '../tools/runToolCall.js';
import { completeResults, ORPHAN_RESULT_TEXT, repeatedCallText, textOf } from './messages.js';
import { contextWindowExceeded } from './contextWindow.js';
import { addUsage, budgetPriceFor, costOf, priceFor, type PriceTable } from './pricing.js';
import { stateWith } from './stateWith.js';
import type { LoopEvent, LoopState, QueryTracking } from './types.js';

/** What the fold needs besides its inputs; fixed for one run. */
export interface FoldEnv {
  readonly newId: () => string;
  readonly prices: PriceTable;
  /** Identical consecutive calls refused from this count on; 0 disables. */
  readonly repeatedToolCallLimit: number;
  readonly interactive: boolean;
  /** Under a cost budget an unknown model is charged the highest known price, never $0. */
  readonly budgeted?: boolean;
}

/** One model attempt as data; a fresh one after a fallback and after a `stream_retry`. */
export interface Attempt {
  /** The iteration's state with what this response added (usage, cost, the repeat run). */
  readonly state: LoopState;
  readonly messageUuid: string | undefined;
  readonly message: AssistantMessage | undefined;
  readonly blocks: readonly AssistantContentBlock[];
  readonly toolUses: readonly ToolUseBlock[];
  readonly results: ReadonlyMap<string, ToolResultBlock>;
  readonly batch: ToolBatch | undefined;
  /** Calls refused as identical repeats: never handed to the scheduler, answered here. */
  readonly refused: ReadonlyMap<string, ToolResultBlock>;
  /** What this response cost, charged to the budget when the message arrives. */
  readonly costUsd: number;
}

/** The fold's accumulator: the attempt so far and the events the last input produced. */
export interface AttemptStep {
  readonly attempt: Attempt;
  readonly events: readonly LoopEvent[];
  /**
   * The error this input turns the attempt into, raised by the model phase once the attempt
   * (its cost included) is recorded: a `model_context_window_exceeded` response.
   */
  readonly error?: unknown;
}

const NO_RESULTS: ReadonlyMap<string, ToolResultBlock> = new Map();

export function newAttempt(state: LoopState): Attempt {
  return { state, messageUuid: undefined, message: undefined, blocks: [], toolUses: [], results: NO_RESULTS, batch: undefined, refused: NO_RESULTS, costUsd: 0 };
}

type AttemptDraft = { -readonly [K in keyof Attempt]: Attempt[K] };

/**
 * A copy of `a` to change before handing it on: a literal listing every key in `newAttempt`'s
 * order (one shape for every attempt), not `{ ...a, x }` (see `stateWith`).
 */
function attemptWith(a: Attempt): AttemptDraft {
  const draft = {
    state: a.state,
    messageUuid: a.messageUuid,
    message: a.message,
    blocks: a.blocks,
    toolUses: a.toolUses,
    results: a.results,
    batch: a.batch,
    refused: a.refused,
    costUsd: a.costUsd,
  } satisfies Record<keyof Attempt, unknown>;
  return draft;
}

/** What the model phase folds: the assembled response and the scheduler's tool events. */
export type FoldInput = AssemblyOutput | ToolEvent;

/** The inputs that leave the attempt as it is: each becomes exactly one loop event. */
const PASS_THROUGH_TYPES = new Set(['debug', 'block_start', 'text_delta', 'thinking_delta', 'tool_input_delta', 'message_delta', 'tool_start', 'tool_progress'] as const);
type PassThroughInput = Extract<FoldInput, { type: typeof PASS_THROUGH_TYPES extends Set<infer T> ? T : never }>;

/**
 * Whether `input` leaves the attempt as it is (deltas, block starts, tool starts and progress:
 * most of a response). For those the model phase hands on `passThroughEvent` without a fold
 * step; `foldAttempt` gives the same one event for them.
 */
export function isPassThrough(input: FoldInput): input is PassThroughInput {
  return PASS_THROUGH_TYPES.has(input.type as PassThroughInput['type']);
}

/** The one loop event of an input that leaves the attempt as it is. */
export function passThroughEvent(t: QueryTracking, input: PassThroughInput): LoopEvent {
  switch (input.type) {
    case 'debug':
    case 'block_start':
    case 'text_delta':
    case 'thinking_delta':
    case 'tool_input_delta':
    case 'message_delta':
      return modelEvent(t, input);
    case 'tool_start':
      return toolStartEvent(t, input.toolUseId, input.name, input.input);
    case 'tool_progress':
      return toolProgressEvent(t, input.toolUseId, input.name, input.data);
    default:
      return assertNever(input, 'pass-through input');
  }
}

export function foldAttempt(attempt: Attempt, input: FoldInput, env: FoldEnv): AttemptStep {
  const t = attempt.state;
  if (isPassThrough(input)) return { attempt, events: [passThroughEvent(t, input)] };
  switch (input.type) {
    case 'api_retry':
      return { attempt, events: [eventOf(t, { type: 'api_retry', retry: input })] };
    case 'stream_retry':
      return { attempt: newAttempt(attempt.state), events: [eventOf(t, { type: 'stream_retry', retry: input })] };
    case 'message_start': {
      const next = attemptWith(attempt);
      next.messageUuid = env.newId();
      return { attempt: next, events: [modelEvent(t, input)] };
    }
    case 'block':
      return foldBlock(attempt, input, env);
    case 'message':
      return foldMessage(attempt, input.message, env);
    case 'warning':
      return { attempt, events: [warningEvent(t, input.message, 'stream_assembly')] };
    case 'tool_result':
      return foldToolResult(attempt, input, env);
    case 'tool_batch': {
      const next = attemptWith(attempt);
      next.batch = withRefused(attempt, input);
      return { attempt: next, events: [] };
    }
    default:
      return assertNever(input, 'attempt input');
  }
}

function foldBlock(attempt: Attempt, input: Extract<AssemblyOutput, { type: 'block' }>, env: FoldEnv): AttemptStep {
  const t = attempt.state;
  const block = plainBlock(input.block);
  const next = attemptWith(attempt);
  next.blocks = [...attempt.blocks, block];
  if (block.type !== 'tool_use') return { attempt: next, events: [modelEvent(t, input)] };
  next.toolUses = [...attempt.toolUses, block];
  if (isInvalidToolUse(input.block)) return { attempt: next, events: [modelEvent(t, input)] };
  const repeat = repeatVerdict(attempt.state.repeatedCall, block, env.repeatedToolCallLimit);
  if (!repeat) return { attempt: next, events: [modelEvent(t, input)] };
  const state = stateWith(attempt.state);
  state.repeatedCall = repeat.run;
  next.state = state;
  if (!repeat.refused) return { attempt: next, events: [modelEvent(t, input)] };
  const result = errorResult(block.id, repeatedCallText(block.name, repeat.run.count));
  next.refused = withEntry(attempt.refused, block.id, result);
  next.results = withEntry(attempt.results, block.id, result);
  return {
    attempt: next,
    events: [
      modelEvent(t, input),
      warningEvent(t, `${block.name} was called ${repeat.run.count} times in a row with the same input; not run again`, 'repeated_tool_call'),
      toolResultEvent(t, block.id, block.name, result, 0),
    ],
  };
}

function foldMessage(attempt: Attempt, message: AssistantMessage, env: FoldEnv): AttemptStep {
  const s = attempt.state;
  const model = message.model || s.model;
  const cost = costOf(message.usage, env.budgeted ? budgetPriceFor(model, env.prices) : priceFor(model, env.prices));
  const text = textOf(message);
  const state = stateWith(s);
  state.usage = addUsage(s.usage, message.usage);
  state.costUsd = s.costUsd + cost;
  state.turnOutputTokens = s.turnOutputTokens + (message.usage.output_tokens ?? 0);
  state.lastAssistantText = text !== '' ? text : s.lastAssistantText;
  state.container = message.container?.id ?? s.container;
  state.lastUsage = message.usage;
  // The reply will sit right after the messages this request carried.
  state.lastUsageCovers = s.messages.length + 1;
  // Recovered like prompt-too-long (reactive compaction): the cut reply is not kept, its cost is.
  const windowExceeded = contextWindowExceeded(message);
  const next = attemptWith(attempt);
  next.state = state;
  next.costUsd = cost;
  if (windowExceeded) return { attempt: next, events: [], error: windowExceeded };
  const messageUuid = attempt.messageUuid ?? env.newId();
  next.message = message;
  next.messageUuid = messageUuid;
  return { attempt: next, events: [assistantMessageEvent(s, message, messageUuid)] };
}

function foldToolResult(attempt: Attempt, input: Extract<ToolEvent, { type: 'tool_result' }>, env: FoldEnv): AttemptStep {
  const t = attempt.state;
  const next = attemptWith(attempt);
  next.results = withEntry(attempt.results, input.toolUseId, input.result);
  const result = toolResultEvent(t, input.toolUseId, input.name, input.result, input.durationMs, input.structured);
  if (!input.deferral) return { attempt: next, events: [result] };
  // An accepted deferral has no result yet (the terminal names the call); an ignored one ran.
  if (input.deferral.accepted) return { attempt: next, events: [] };
  const why = env.interactive ? 'this run is interactive' : 'its response holds other tool calls';
  return {
    attempt: next,
    events: [warningEvent(t, `a PreToolUse hook deferred ${input.name} (${input.toolUseId}), which was ignored: ${why}`, 'tool_defer_ignored'), result],
  };
}

/** The batch with the refused calls' results put back in tool_use order. */
function withRefused(attempt: Attempt, batch: ToolBatch): ToolBatch {
  if (attempt.refused.size === 0) return batch;
  const byId = new Map(batch.results.map((r) => [r.tool_use_id, r] as const));
  for (const [id, r] of attempt.refused) byId.set(id, r);
  return { ...batch, results: completeResults(attempt.toolUses, byId, ORPHAN_RESULT_TEXT) };
}

type RepeatRun = NonNullable<LoopState['repeatedCall']>;

/**
 * Identical consecutive calls (same name and input, across iterations): from the limit on, the
 * call is not run; the model gets an error result saying it is repeating itself. Undefined when
 * the check is off. Pure, so the tool branch can apply it too (see `withoutRepeats`).
 */
export function repeatVerdict(previous: RepeatRun | undefined, block: ToolUseBlock, limit: number): { run: RepeatRun; refused: boolean } | undefined {
  if (limit <= 0) return undefined;
  const signature = `${block.name}\u0000${JSON.stringify(block.input)}`;
  const count = previous && previous.signature === signature ? previous.count + 1 : 1;
  return { run: { signature, count }, refused: count >= limit };
}

/** A tool_use block as history keeps it: the `invalid` marker is ours, not the API's. */
function plainBlock(block: AssistantContentBlock | InvalidToolUseBlock): AssistantContentBlock {
  if (block.type === 'tool_use' && 'invalid' in block) {
    const { invalid: _invalid, ...rest } = block;
    return rest;
  }
  return block;
}

function withEntry<V>(map: ReadonlyMap<string, V>, key: string, value: V): ReadonlyMap<string, V> {
  return new Map(map).set(key, value);
}
