/**
 * Immutable update helpers of the view: each returns a new object only along the path that
 * changed, so everything else keeps its identity (structural sharing).
 */
import { ZERO_USAGE } from '../loop/pricing.js';
import type { AgentView, MessageView, Part, ToolPart, TurnItem, TurnView } from './types.js';

const EMPTY_VIEW: AgentView = Object.freeze({
  turns: [],
  permissions: [],
  elicitations: [],
  running: false,
  usage: ZERO_USAGE,
  costUsd: 0,
  terminal: undefined,
  internal: { nextKey: 0, toolTurn: {}, settledUsage: ZERO_USAGE, settledCostUsd: 0 },
});

/** The view before any event: always the same object (a stable snapshot for stores). */
export function emptyView(): AgentView {
  return EMPTY_VIEW;
}

export function replaceAt<T>(items: readonly T[], index: number, item: T): readonly T[] {
  if (items[index] === item) return items;
  const copy = items.slice();
  copy[index] = item;
  return copy;
}

/** A fresh key for a new item, and the view that has used it up. */
export function takeKey(view: AgentView, prefix: string): [string, AgentView] {
  const n = view.internal.nextKey;
  return [`${prefix}${n}`, { ...view, internal: { ...view.internal, nextKey: n + 1 } }];
}

/** A turn events still go to: not ended, not the history of a resumed session. */
export const isOpen = (turn: TurnView): boolean => turn.terminal === undefined && !turn.fromHistory;

/** The view with an open (not yet ended) last turn: a new one after an ended turn or at the start. */
export function withOpenTurn(view: AgentView): AgentView {
  const last = view.turns[view.turns.length - 1];
  if (last && isOpen(last)) return view.running ? view : { ...view, running: true };
  const [key, keyed] = takeKey(view, 't');
  const turn: TurnView = { key, items: [], iterations: 0, terminal: undefined, fromHistory: false };
  return { ...keyed, running: true, turns: [...keyed.turns, turn] };
}

/** Applies `update` to the open last turn (opening one when needed). */
export function updateOpenTurn(view: AgentView, update: (turn: TurnView, view: AgentView) => TurnView): AgentView {
  const open = withOpenTurn(view);
  const index = open.turns.length - 1;
  const turn = open.turns[index]!;
  const next = update(turn, open);
  return next === turn ? open : { ...open, turns: replaceAt(open.turns, index, next) };
}

export function appendItem(turn: TurnView, item: TurnItem): TurnView {
  return { ...turn, items: [...turn.items, item] };
}

/** Index of the assistant message still streaming in this turn, or -1. */
export function streamingMessageIndex(turn: TurnView): number {
  for (let i = turn.items.length - 1; i >= 0; i--) {
    const item = turn.items[i]!;
    if (item.kind === 'message' && item.role === 'assistant' && item.streaming) return i;
  }
  return -1;
}

export function updateItem(turn: TurnView, index: number, update: (item: TurnItem) => TurnItem): TurnView {
  const item = turn.items[index];
  if (item === undefined) return turn;
  const next = update(item);
  return next === item ? turn : { ...turn, items: replaceAt(turn.items, index, next) };
}

export function updatePart(message: MessageView, index: number, update: (part: Part) => Part): MessageView {
  const part = message.parts[index];
  if (part === undefined) return message;
  const next = update(part);
  return next === part ? message : { ...message, parts: replaceAt(message.parts, index, next) };
}

/**
 * Applies `update` to the tool call `toolUseId` wherever it lives (any turn, the message that
 * holds it). Unknown ids (a retracted attempt's call, a tombstoned message) leave the view as it is.
 */
export function updateTool(view: AgentView, toolUseId: string, update: (part: ToolPart) => ToolPart): AgentView {
  const turnIndex = view.internal.toolTurn[toolUseId];
  if (turnIndex === undefined) return view;
  const turn = view.turns[turnIndex];
  if (!turn) return view;
  for (let i = turn.items.length - 1; i >= 0; i--) {
    const item = turn.items[i]!;
    if (item.kind !== 'message') continue;
    const p = item.parts.findIndex((part) => part.kind === 'tool' && part.id === toolUseId);
    if (p === -1) continue;
    const nextTurn = updateItem(turn, i, (m) => updatePart(m as MessageView, p, (part) => update(part as ToolPart)));
    return nextTurn === turn ? view : { ...view, turns: replaceAt(view.turns, turnIndex, nextTurn) };
  }
  return view;
}
