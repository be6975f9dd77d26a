/** Folding event lists into views, and reading a view back as plain data for assertions. */
import { emptyView, reduceView } from '../../src/ui/reduceView.js';
import type { AgentView, MessageView, Part, ToolPart, ViewEvent } from '../../src/ui/types.js';

/** Every view along the way: `views[i]` is the view after `events[i]`. */
export function foldViews(events: readonly ViewEvent[], start: AgentView = emptyView()): AgentView[] {
  const views: AgentView[] = [];
  let view = start;
  events.forEach((event, i) => {
    view = reduceView(view, event, 1000 + i);
    views.push(view);
  });
  return views;
}

export const finalView = (events: readonly ViewEvent[]): AgentView => foldViews(events).at(-1) ?? emptyView();

export function messages(view: AgentView): MessageView[] {
  return view.turns.flatMap((t) => t.items.filter((i): i is MessageView => i.kind === 'message'));
}

/** A message as `role: text|[tool name status]|...`, the way a reader checks a transcript. */
export function describeMessage(m: MessageView): string {
  const part = (p: Part) => (p.kind === 'text' ? p.text : p.kind === 'thinking' ? `(thinking ${p.text})` : `[${p.name} ${p.status}]`);
  return `${m.role}: ${m.parts.map(part).join('|')}`;
}

export const transcript = (view: AgentView): string[] => messages(view).map(describeMessage);

export function tools(view: AgentView): ToolPart[] {
  return messages(view).flatMap((m) => m.parts.filter((p): p is ToolPart => p.kind === 'tool'));
}

/** Index of the first event matching `predicate` (throws when none does). */
export function indexOf(events: readonly ViewEvent[], predicate: (e: ViewEvent) => boolean): number {
  const i = events.findIndex(predicate);
  if (i === -1) throw new Error('no such event');
  return i;
}
