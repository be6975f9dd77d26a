/** Selectors for what most UIs ask of a view. Pure; they walk subagents' nested views too where it says so. */
import type { AgentView, MessageView, PermissionView, ToolPart } from './types.js';

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
