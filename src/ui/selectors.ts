/** Selectors for what most UIs ask of a view. Pure; they walk subagents' nested views too where it says so. */
import type { UsageTotals } from '../loop/types.js';
import type { AgentView, MessageView, PermissionView, StreamUsage, ToolPart } from './types.js';

function messagesOf(view: AgentView): MessageView[] {
  return view.turns.flatMap((turn) => turn.items.filter((item): item is MessageView => item.kind === 'message'));
}

/** The text of the latest assistant message (streaming or not), '' when there is none yet. */
export function lastAnswer(view: AgentView): string {
  const messages = messagesOf(view);
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== 'assistant') continue;
    const text = m.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])).join('');
    if (text !== '') return text;
  }
  return '';
}

/** Every tool call of the view and of its subagents (depth first, in order). */
export function allTools(view: AgentView): ToolPart[] {
  return messagesOf(view).flatMap((m) =>
    m.parts.flatMap((p) => (p.kind === 'tool' ? [p, ...(p.subagent ? allTools(p.subagent.view) : [])] : [])),
  );
}

/** The calls running now, subagents' included. */
export function runningTools(view: AgentView): ToolPart[] {
  return allTools(view).filter((t) => t.status === 'running');
}

/** The permission questions waiting for an answer, oldest first. */
export function pendingPermissions(view: AgentView): readonly PermissionView[] {
  return view.permissions;
}

/** The run's cost so far in USD (ended runs by their terminal, the running one by its completed responses). */
export function totalCost(view: AgentView): number {
  return view.costUsd;
}

/**
 * The tokens so far, live: the completed responses' (`view.usage`) plus the responses still
 * streaming (their input from `message_start`, their output estimated until the API counts it),
 * so a counter moves while the answer streams. `estimated` says an estimate is in the figure.
 * Input here is the whole prompt (cache reads and writes included).
 */
export function liveUsage(view: AgentView): { readonly inputTokens: number; readonly outputTokens: number; readonly estimated: boolean } {
  const u: UsageTotals = view.usage;
  let inputTokens = u.inputTokens + u.cacheCreationInputTokens + u.cacheReadInputTokens;
  let outputTokens = u.outputTokens;
  let estimated = false;
  const streaming = inFlight(view);
  if (streaming) {
    inputTokens += streaming.inputTokens;
    outputTokens += streaming.outputTokens;
    estimated = streaming.estimated;
  }
  return { inputTokens, outputTokens, estimated };
}

/**
 * The cost so far, live: the completed responses' (`view.costUsd`) plus the response streaming
 * now, its input priced at `message_start` and its output at the live counter (estimated until
 * the API counts it). A retried stream's attempt leaves the figure with its text.
 */
export function liveCost(view: AgentView): { readonly costUsd: number; readonly estimated: boolean } {
  const streaming = inFlight(view);
  if (!streaming) return { costUsd: view.costUsd, estimated: false };
  return { costUsd: view.costUsd + streaming.inputCostUsd + (streaming.outputTokens * streaming.outputUsdPerMTok) / 1_000_000, estimated: streaming.estimated };
}

/** The usage of the response streaming now, if one is. */
function inFlight(view: AgentView): StreamUsage | undefined {
  const turn = view.running ? view.turns[view.turns.length - 1] : undefined;
  // Only the latest response can be in flight; an earlier one without a uuid was abandoned
  // (its stream failed) and the loop does not count it either.
  const items = turn?.items ?? [];
  let latest: MessageView | undefined;
  for (let i = items.length - 1; i >= 0 && !latest; i--) {
    const item = items[i]!;
    if (item.kind === 'message' && item.role === 'assistant') latest = item;
  }
  return latest?.streamUsage && latest.uuid === undefined ? latest.streamUsage : undefined;
}
