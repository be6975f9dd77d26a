/**
 * A resumed session's earlier conversation as one ended turn: user texts, assistant messages with
 * their parts, each tool call paired with its result from the next user message (done or error;
 * a call without a result was cut off: cancelled).
 */
import type { MessageParam, ToolResultBlock } from '../protocol/content.js';
import { partFromBlock, resultView, userText } from './parts.js';
import { statusOfResult } from './reduceTools.js';
import type { AgentView, MessageView, Part, TurnItem, TurnView } from './types.js';
import { takeKey } from './viewState.js';

export function reduceHistory(view: AgentView, messages: readonly MessageParam[]): AgentView {
  if (messages.length === 0) return view;
  const results = new Map<string, ToolResultBlock>();
  for (const m of messages) {
    if (m.role !== 'user' || typeof m.content === 'string') continue;
    for (const b of m.content) if (b.type === 'tool_result') results.set(b.tool_use_id, b);
  }
  let keyed = view;
  const items: TurnItem[] = [];
  const toolIds: string[] = [];
  for (const m of messages) {
    const text = m.role === 'user' ? userText(m.content) : '';
    if (m.role === 'user' && text === '') continue;
    const [key, next] = takeKey(keyed, 'h');
    keyed = next;
    const base: MessageView = { kind: 'message', key, role: m.role, uuid: undefined, apiId: undefined, model: undefined, reason: undefined, parts: [], streaming: false };
    if (m.role === 'user') {
      items.push({ ...base, parts: [{ kind: 'text', key: `${key}.0`, blockIndex: 0, text, streaming: false }] });
      continue;
    }
    const blocks = typeof m.content === 'string' ? [{ type: 'text' as const, text: m.content }] : m.content;
    const parts: Part[] = [];
    blocks.forEach((block, blockIndex) => {
      if (block.type !== 'text' && block.type !== 'thinking' && block.type !== 'redacted_thinking' && block.type !== 'tool_use') return;
      const part = partFromBlock(key, blockIndex, block, undefined);
      if (part.kind !== 'tool') return void parts.push(part);
      toolIds.push(part.id);
      const result = results.get(part.id);
      parts.push(result ? { ...part, status: statusOfResult(part.name, result), result: resultView(result) } : { ...part, status: 'cancelled' });
    });
    items.push({ ...base, parts });
  }
  const [turnKey, withTurnKey] = takeKey(keyed, 't');
  const turn: TurnView = { key: turnKey, items, iterations: 0, terminal: undefined, fromHistory: true };
  const turnIndex = withTurnKey.turns.length;
  const toolTurn = { ...withTurnKey.internal.toolTurn };
  for (const id of toolIds) toolTurn[id] = turnIndex;
  return { ...withTurnKey, turns: [...withTurnKey.turns, turn], internal: { ...withTurnKey.internal, toolTurn } };
}
