/**
 * The conversation as DOM, from AgentView. Lists are keyed and reconciled by identity (dom.ts):
 * a delta rebuilds only its text part; a tool card is patched in place, so a subagent's nested
 * conversation (rendered by a renderer of its own) survives its parent's updates.
 */
import { inputSummary } from '../../ui/inputSummary.js';
import type { AgentView, MessageView, Part, ToolPart, TurnItem, TurnView } from '../../ui/types.js';
import { h, KeyedList } from './dom.js';
import { renderMarkdown } from './markdown.js';

/** A running call's time so far (main.ts ticks it). */
export const elapsedText = (startedAt: number, now: number) => `${(Math.max(0, now - startedAt) / 1000).toFixed(1)} s`;

const formatMs = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`);

function resultBlock(tool: ToolPart): HTMLElement | undefined {
  if (!tool.result) return undefined;
  const text = tool.result.text;
  const pre = h('pre', { class: tool.result.isError ? 'result error' : 'result' }, text.length > 4000 ? `${text.slice(0, 4000)}\n… (${text.length - 4000} more characters)` : text);
  if (tool.name === 'Agent' || text.split('\n').length <= 12) return pre;
  return h('details', {}, h('summary', { class: 'dim' }, `Result (${text.split('\n').length} lines)`), pre);
}

function progressBlock(tool: ToolPart): HTMLElement | undefined {
  const last = tool.progress[tool.progress.length - 1];
  if (last === undefined || tool.status !== 'running') return undefined;
  return h('pre', { class: 'progress' }, typeof last === 'string' ? last : JSON.stringify(last));
}

function diffBlock(tool: ToolPart): HTMLElement | undefined {
  if (!tool.diff || tool.diff.length === 0) return undefined;
  return h('div', { class: 'diff' }, ...tool.diff.map((d) => h('div', { class: d.sign === '+' ? 'add' : d.sign === '-' ? 'del' : 'ctx' }, `${d.sign} ${d.text}`)));
}

function stateText(tool: ToolPart): string {
  switch (tool.status) {
    case 'pending':
      return 'waiting';
    case 'running':
      return 'running';
    case 'done':
      return tool.durationMs === undefined ? 'done' : `done in ${formatMs(tool.durationMs)}`;
    case 'error':
      return tool.durationMs === undefined ? 'failed' : `failed after ${formatMs(tool.durationMs)}`;
    case 'cancelled':
      return 'cancelled';
  }
}

const subRenderers = new WeakMap<HTMLElement, ConversationRenderer>();

function fillToolCard(card: HTMLElement, tool: ToolPart): void {
  card.dataset['status'] = tool.status;
  card.dataset['toolName'] = tool.name;
  const elapsed =
    tool.status === 'running' && tool.startedAt !== undefined
      ? h('span', { class: 'elapsed dim', 'data-started': String(tool.startedAt) }, elapsedText(tool.startedAt, Date.now()))
      : undefined;
  const head = h(
    'div',
    { class: 'tool-head' },
    h('span', { class: 'tool-name' }, tool.name),
    h('span', { class: 'tool-input', title: inputSummary(tool.input, 2000) }, inputSummary(tool.input) || tool.partialInput.slice(-80)),
    h('span', { class: 'tool-state' }, stateText(tool)),
    elapsed,
  );
  let sub = card.querySelector<HTMLElement>(':scope > .subagent');
  if (tool.subagent) {
    if (!sub) {
      sub = h('div', { class: 'subagent', 'data-agent-type': tool.subagent.agentType });
      subRenderers.set(sub, new ConversationRenderer(sub));
    }
    subRenderers.get(sub)!.render(tool.subagent.view);
  }
  card.replaceChildren(...[head, diffBlock(tool), progressBlock(tool), sub ?? undefined, resultBlock(tool)].filter((x): x is HTMLElement => x !== undefined));
}

function buildPart(part: Part): HTMLElement {
  switch (part.kind) {
    case 'text': {
      const el = h('div', { class: part.streaming ? 'text streaming' : 'text' });
      el.innerHTML = renderMarkdown(part.text);
      return el;
    }
    case 'thinking':
      return h('details', { class: 'thinking' }, h('summary', {}, part.redacted ? 'Thinking (redacted)' : part.streaming ? 'Thinking…' : 'Thinking'), h('div', {}, part.text));
    case 'tool': {
      const card = h('div', { class: 'tool', 'data-tool-id': part.id });
      fillToolCard(card, part);
      return card;
    }
  }
}

/** Tool cards are patched in place; text and thinking are rebuilt. */
function patchPart(el: HTMLElement, part: Part, previous: Part): HTMLElement {
  if (part.kind === 'tool' && previous.kind === 'tool') {
    fillToolCard(el, part);
    return el;
  }
  const next = buildPart(part);
  // Keep a thinking block open while it streams if the reader opened it.
  if (el instanceof HTMLDetailsElement && next instanceof HTMLDetailsElement) next.open = el.open;
  return next;
}

function buildItem(item: TurnItem): HTMLElement {
  switch (item.kind) {
    case 'message': {
      if (item.role === 'user') return h('div', { class: 'msg user', 'data-role': 'user' }, item.parts.map((p) => (p.kind === 'text' ? p.text : '')).join(''));
      const el = h('div', { class: 'msg assistant', 'data-role': 'assistant' });
      const parts = new KeyedList<Part>(el, buildPart, patchPart);
      messageParts.set(el, parts);
      parts.update(item.parts);
      return el;
    }
    case 'notice':
      return h('div', { class: `notice ${item.level}` }, item.text);
    case 'compact_boundary':
      return h('div', { class: 'boundary' }, `context compacted (${item.trigger}): ${item.preTokens} → ${item.postTokens} tokens`);
  }
}

const messageParts = new WeakMap<HTMLElement, KeyedList<Part>>();

function patchItem(el: HTMLElement, item: TurnItem): HTMLElement {
  const parts = messageParts.get(el);
  if (item.kind === 'message' && item.role === 'assistant' && parts) {
    parts.update((item as MessageView).parts);
    return el;
  }
  return buildItem(item);
}

function endLine(turn: TurnView): HTMLElement | undefined {
  const t = turn.terminal;
  if (!t) return undefined;
  const failed = t.reason !== 'completed' && t.reason !== 'max_turns';
  const tokens = `${t.usage.inputTokens + t.usage.cacheCreationInputTokens + t.usage.cacheReadInputTokens} in / ${t.usage.outputTokens} out tokens`;
  const text = [`${t.turnCount} turn${t.turnCount === 1 ? '' : 's'}`, tokens, `$${t.costUsd.toFixed(4)}`, formatMs(t.durationMs), t.reason].join(' · ');
  const said = t.error ? t.error.message : t.note;
  return h('div', { class: failed ? 'turn-end failed' : 'turn-end', 'data-reason': t.reason }, said ? `${text}: ${said}` : text);
}

const turnItems = new WeakMap<HTMLElement, KeyedList<TurnItem>>();

function buildTurn(turn: TurnView): HTMLElement {
  const body = h('div', { class: 'items' });
  const el = h('section', { class: 'turn' }, body);
  const items = new KeyedList<TurnItem>(body, buildItem, patchItem);
  turnItems.set(el, items);
  patchTurn(el, turn);
  return el;
}

function patchTurn(el: HTMLElement, turn: TurnView): void {
  turnItems.get(el)!.update(turn.items);
  el.querySelector(':scope > .turn-end')?.remove();
  const end = endLine(turn);
  if (end) el.append(end);
}

/** Renders one view (the page's, or a subagent's) into a container, reusing what did not change. */
export class ConversationRenderer {
  private readonly turns: KeyedList<TurnView>;
  private last: AgentView | undefined;

  constructor(container: HTMLElement) {
    this.turns = new KeyedList<TurnView>(container, buildTurn, (el, turn) => {
      patchTurn(el, turn);
      return el;
    });
  }

  render(view: AgentView): void {
    if (view === this.last) return;
    this.last = view;
    this.turns.update(view.turns);
  }
}
