/**
 * `reduceView(view, event, at?)`: the pure fold from the loop's events (the agent tree's and the
 * host's permission events included) to an immutable `AgentView`. An event that changes nothing
 * the view shows returns the same object, so `distinctUntilChanged()` drops it; everything that
 * did not change keeps its identity. `at` (ms since epoch) stamps when a tool call started; the
 * reducer itself never reads a clock.
 *
 * Retractions: a `stream_retry` removes the message that was streaming (its partial text and its
 * void calls) in the frame of the retry; a `tombstone` removes the messages it names and a message
 * still streaming (the failed attempt's uuid never reached the consumer before its fallback).
 */
import { addUsage, costOf, priceFor } from '../loop/pricing.js';
import type { LoopEvent, TerminalEvent } from '../loop/types.js';
import { assertNever } from '../util/assertNever.js';
import { userText } from './parts.js';
import { reduceAssistantMessage, reduceModelEvent } from './reduceStream.js';
import { settleAtEnd } from './settleAtEnd.js';
import { cancelUnfinished, finishTool, progressTool, startTool } from './reduceTools.js';
import type { AgentView, MessageView, NoticeItem, TerminalSummary, TurnView, ViewEvent } from './types.js';
import { reduceHistory } from './reduceHistory.js';
import { appendItem, isOpen, replaceAt, streamingMessageIndex, takeKey, updateOpenTurn } from './viewState.js';

export { emptyView } from './viewState.js';

function addNotice(view: AgentView, level: NoticeItem['level'], text: string, code: string | undefined): AgentView {
  const [key, keyed] = takeKey(view, 'n');
  return updateOpenTurn(keyed, (turn) => {
    const last = turn.items[turn.items.length - 1];
    // A run of retries is one notice that says the latest attempt.
    if (level === 'retry' && last?.kind === 'notice' && last.level === 'retry') {
      return { ...turn, items: replaceAt(turn.items, turn.items.length - 1, { ...last, text }) };
    }
    return appendItem(turn, { kind: 'notice', key, level, text, code });
  });
}

function retractStreaming(turn: TurnView): TurnView {
  const index = streamingMessageIndex(turn);
  return index === -1 ? turn : { ...turn, items: turn.items.filter((_, i) => i !== index) };
}

function applyTombstone(view: AgentView, uuids: readonly string[]): AgentView {
  const gone = new Set(uuids);
  const isGone = (item: TurnView['items'][number]) => item.kind === 'message' && item.uuid !== undefined && gone.has(item.uuid);
  const turns = view.turns.map((turn, index) => {
    const kept = turn.items.filter((item) => !isGone(item));
    const cleaned = kept.length === turn.items.length ? turn : { ...turn, items: kept };
    return index === view.turns.length - 1 && isOpen(turn) ? retractStreaming(cleaned) : cleaned;
  });
  return turns.every((t, i) => t === view.turns[i]) ? view : { ...view, turns };
}

function summaryOf(event: TerminalEvent): TerminalSummary {
  return {
    reason: event.reason,
    turnCount: event.turnCount,
    usage: event.usage,
    costUsd: event.costUsd,
    durationMs: event.durationMs,
    error: event.error,
    // No model message carries the answer of a turn that made no model call: the terminal does.
    ...(event.turnCount === 0 && event.lastAssistantText ? { note: event.lastAssistantText } : {}),
  };
}

function endRun(view: AgentView, event: TerminalEvent): AgentView {
  const terminal = summaryOf(event);
  const settledUsage = sumUsage(view.internal.settledUsage, event.usage);
  const settledCostUsd = view.internal.settledCostUsd + event.costUsd;
  const closed = updateOpenTurn(view, (turn) => {
    const open = streamingMessageIndex(turn);
    let settled = turn;
    if (open !== -1) {
      const kept = settleAtEnd(turn.items[open] as MessageView, event.messages, turn.items);
      settled = kept ? { ...turn, items: replaceAt(turn.items, open, kept) } : { ...turn, items: turn.items.filter((_, i) => i !== open) };
    }
    return { ...cancelUnfinished(settled), terminal };
  });
  return {
    ...closed,
    running: false,
    terminal,
    usage: settledUsage,
    costUsd: settledCostUsd,
    internal: { ...closed.internal, settledUsage, settledCostUsd },
  };
}

function sumUsage(a: AgentView['usage'], b: AgentView['usage']): AgentView['usage'] {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheCreationInputTokens: a.cacheCreationInputTokens + b.cacheCreationInputTokens,
    cacheReadInputTokens: a.cacheReadInputTokens + b.cacheReadInputTokens,
  };
}

function reduceLoopEvent(view: AgentView, event: LoopEvent, at: number | undefined): AgentView {
  switch (event.type) {
    case 'iteration_start':
      return updateOpenTurn(view, (turn) => (turn.iterations === event.turnCount ? turn : { ...turn, iterations: event.turnCount }));
    case 'model':
      return reduceModelEvent(view, event.event);
    case 'api_retry': {
      const r = event.retry;
      return addNotice(view, 'retry', `${r.status ?? ''} ${r.errorType}: retrying (${r.attempt}/${r.maxRetries})`.trim(), r.errorType);
    }
    case 'stream_retry': {
      const r = event.retry;
      const retracted = updateOpenTurn(view, retractStreaming);
      return addNotice(retracted, 'retry', `The stream broke (${r.errorType}); the partial answer was discarded, retrying (${r.attempt}/${r.maxRetries})`, r.errorType);
    }
    case 'assistant_message': {
      const withMessage = reduceAssistantMessage(view, event.message, event.uuid);
      const usage = addUsage(withMessage.usage, event.message.usage);
      return { ...withMessage, usage, costUsd: withMessage.costUsd + costOf(event.message.usage, priceFor(event.message.model)) };
    }
    case 'tool_start':
      return startTool(view, event.toolUseId, event.input, at);
    case 'tool_progress':
      return progressTool(view, event.toolUseId, event.data, at, reduceView);
    case 'tool_result':
      return finishTool(view, event.toolUseId, event.name, event.result, event.durationMs);
    case 'user_message': {
      // Tool results are shown on their calls; meta messages are not for people.
      if (event.reason === 'tool_results' || event.reason === 'orphan_results' || event.isMeta === true) return view;
      const [key, keyed] = takeKey(view, 'u');
      const message: MessageView = {
        kind: 'message',
        key,
        role: 'user',
        uuid: event.uuid,
        apiId: undefined,
        model: undefined,
        reason: event.reason,
        parts: [{ kind: 'text', key: `${key}.0`, blockIndex: 0, text: userText(event.message.content), streaming: false }],
        streaming: false,
      };
      return updateOpenTurn(keyed, (turn) => appendItem(turn, message));
    }
    case 'tombstone':
      return applyTombstone(view, event.uuids);
    case 'warning': {
      // A host's warning outside any turn (an MCP server that failed as the session was built) is
      // shown where the next turn will go, but no turn runs because of it: the page would say
      // "running" and offer Stop with nothing to stop.
      const last = view.turns[view.turns.length - 1];
      const noted = addNotice(view, 'warning', event.message, event.code);
      return last !== undefined && isOpen(last) ? noted : { ...noted, running: view.running };
    }
    case 'compact_boundary': {
      const [key, keyed] = takeKey(view, 'b');
      return updateOpenTurn(keyed, (turn) =>
        appendItem(turn, { kind: 'compact_boundary', key, trigger: event.trigger, preTokens: event.preTokens, postTokens: event.postTokens }),
      );
    }
    case 'transition':
    case 'command_lifecycle':
      return view;
    case 'terminal':
      return endRun(view, event);
    default:
      return assertNever(event, 'loop event');
  }
}

/** Folds one event into the view (see the file head). */
export function reduceView(view: AgentView, event: ViewEvent, at?: number): AgentView {
  switch (event.type) {
    case 'permission_request':
      if (view.permissions.some((p) => p.requestId === event.requestId)) return view;
      return {
        ...view,
        permissions: [
          ...view.permissions,
          { requestId: event.requestId, toolUseId: event.toolUseId, toolName: event.toolName, input: event.input, reason: event.reason },
        ],
      };
    case 'history':
      return reduceHistory(view, event.messages);
    case 'view_snapshot':
      return event.view;
    case 'elicitation_request': {
      if (view.elicitations.some((e) => e.requestId === event.requestId)) return view;
      const { type: _type, ...asked } = event;
      return { ...view, elicitations: [...view.elicitations, asked] };
    }
    case 'elicitation_settled': {
      const elicitations = view.elicitations.filter((e) => e.requestId !== event.requestId);
      return elicitations.length === view.elicitations.length ? view : { ...view, elicitations };
    }
    case 'permission_settled': {
      const permissions = view.permissions.filter((p) => p.requestId !== event.requestId);
      return permissions.length === view.permissions.length ? view : { ...view, permissions };
    }
    default:
      return reduceLoopEvent(view, event, at);
  }
}
