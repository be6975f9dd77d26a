/**
 * The streaming assistant message: `message_start` opens it (with the input tokens), block
 * starts and deltas grow its parts and its live output-token estimate (`message_delta` gives the
 * real count), complete blocks replace them with what the API sent, `assistant_message` gives it its
 * history uuid. A `stream_retry` or a tombstone retracts it (see reduceView).
 */
import type { AssemblyEvent } from '../assembly/types.js';
import type { AssistantMessage, Usage } from '../protocol/content.js';
import { costOf, priceFor } from '../loop/pricing.js';
import type { DebugEvent } from '../transport/types.js';
import { assertNever } from '../util/assertNever.js';
import { partFromBlock, partFromStart, partKey } from './parts.js';
import type { AgentView, MessageView, Part, StreamUsage, TurnView } from './types.js';
import { appendItem, streamingMessageIndex, takeKey, updateItem, updateOpenTurn, withOpenTurn } from './viewState.js';

/** Registers the tool calls of a message so later tool events find their turn. */
function indexTools(view: AgentView, toolUseIds: readonly string[]): AgentView {
  const ids = toolUseIds.filter((id) => view.internal.toolTurn[id] === undefined);
  if (ids.length === 0) return view;
  const turn = view.turns.length - 1;
  const toolTurn = { ...view.internal.toolTurn };
  for (const id of ids) toolTurn[id] = turn;
  return { ...view, internal: { ...view.internal, toolTurn } };
}

/** Ends a message's streaming (its parts stop streaming too). */
export function settleMessage(message: MessageView): MessageView {
  if (!message.streaming) return message;
  const parts = message.parts.map((p) => (p.kind !== 'tool' && p.streaming ? { ...p, streaming: false } : p));
  return { ...message, streaming: false, parts };
}

/** Applies `update` to the streaming message of the open turn (no-op when none streams). */
function updateStreaming(view: AgentView, update: (message: MessageView) => MessageView): AgentView {
  return updateOpenTurn(view, (turn) => {
    const index = streamingMessageIndex(turn);
    return index === -1 ? turn : updateItem(turn, index, (item) => update(item as MessageView));
  });
}

function upsertPart(message: MessageView, blockIndex: number, make: (previous: Part | undefined) => Part | undefined): MessageView {
  const at = message.parts.findIndex((p) => p.blockIndex === blockIndex);
  const previous = at === -1 ? undefined : message.parts[at];
  const next = make(previous);
  if (next === undefined || next === previous) return message;
  if (at === -1) {
    const parts = [...message.parts, next].sort((a, b) => a.blockIndex - b.blockIndex);
    return { ...message, parts };
  }
  const parts = message.parts.slice();
  parts[at] = next;
  return { ...message, parts };
}

/** Characters per token for the live estimate (the same rough rule the tool output limits use). */
const CHARS_PER_TOKEN = 4;

/** The live counter after `chars` more characters streamed (a reported count is never lowered). */
function countStreamed(message: MessageView, chars: number): MessageView {
  const usage = message.streamUsage;
  if (!usage || chars === 0 || !usage.estimated) return message;
  const streamedChars = usage.streamedChars + chars;
  const outputTokens = Math.max(usage.outputTokens, Math.ceil(streamedChars / CHARS_PER_TOKEN));
  return { ...message, streamUsage: { ...usage, streamedChars, outputTokens } };
}

function startMessage(view: AgentView, apiId: string, model: string, usage: Usage): AgentView {
  const [key, keyed] = takeKey(withOpenTurn(view), 'm');
  const inputTokens = (usage.input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0) + (usage.cache_read_input_tokens ?? 0);
  // The input's cost is known now; the output's follows the counter (see `liveCost`).
  const price = priceFor(model);
  const inputCostUsd = costOf({ ...usage, output_tokens: 0 }, price);
  const streamUsage: StreamUsage = { inputTokens, outputTokens: usage.output_tokens ?? 0, estimated: true, streamedChars: 0, inputCostUsd, outputUsdPerMTok: price?.outputPerMTok ?? 0 };
  const message: MessageView = { kind: 'message', key, role: 'assistant', uuid: undefined, apiId, model, reason: undefined, parts: [], streaming: true, streamUsage };
  return updateOpenTurn(keyed, (turn) => {
    // A message left streaming (its stream failed without a retry) is over now.
    const open = streamingMessageIndex(turn);
    const settled: TurnView = open === -1 ? turn : updateItem(turn, open, (m) => settleMessage(m as MessageView));
    return appendItem(settled, message);
  });
}

export function reduceModelEvent(view: AgentView, event: AssemblyEvent | DebugEvent): AgentView {
  switch (event.type) {
    case 'message_start':
      return startMessage(view, event.id, event.model, event.usage);
    case 'block_start':
      return indexTools(
        updateStreaming(view, (m) => upsertPart(m, event.index, (prev) => prev ?? partFromStart(m.key, event.index, event.block))),
        event.block.type === 'tool_use' ? [event.block.id] : [],
      );
    case 'text_delta':
      if (event.text === '') return view;
      return updateStreaming(view, (m) =>
        countStreamed(
          upsertPart(m, event.index, (prev) =>
            prev?.kind === 'text'
              ? { ...prev, text: prev.text + event.text }
              : { kind: 'text', key: partKey(m.key, event.index), blockIndex: event.index, text: event.text, streaming: true },
          ),
          event.text.length,
        ),
      );
    case 'thinking_delta':
      if (event.thinking === '') return view;
      return updateStreaming(view, (m) =>
        countStreamed(
          upsertPart(m, event.index, (prev) =>
            prev?.kind === 'thinking'
              ? { ...prev, text: prev.text + event.thinking }
              : { kind: 'thinking', key: partKey(m.key, event.index), blockIndex: event.index, text: event.thinking, streaming: true, redacted: false },
          ),
          event.thinking.length,
        ),
      );
    case 'tool_input_delta':
      return updateStreaming(view, (m) =>
        countStreamed(
          upsertPart(m, event.index, (prev) => (prev?.kind === 'tool' ? { ...prev, partialInput: prev.partialInput + event.partialJson } : prev)),
          event.partialJson.length,
        ),
      );
    case 'block': {
      const next = updateStreaming(view, (m) => upsertPart(m, event.index, (prev) => partFromBlock(m.key, event.index, event.block, prev)));
      return event.block.type === 'tool_use' ? indexTools(next, [event.block.id]) : next;
    }
    case 'message_delta': {
      // The API's own count replaces the estimate (a null count leaves the estimate standing).
      const reported = event.usage.output_tokens;
      if (reported === null || reported === undefined) return view;
      return updateStreaming(view, (m) => (m.streamUsage ? { ...m, streamUsage: { ...m.streamUsage, outputTokens: reported, estimated: false } } : m));
    }
    case 'debug':
    case 'warning':
      return view;
    case 'message':
      return updateStreaming(view, settleMessage);
    default:
      return assertNever(event, 'model event');
  }
}

/**
 * The complete assistant message entering the history: the streamed message with the same API id
 * gets its uuid and final parts; a message that was never streamed is added as a whole.
 */
export function reduceAssistantMessage(view: AgentView, message: AssistantMessage, uuid: string): AgentView {
  const open = withOpenTurn(view);
  const turn = open.turns[open.turns.length - 1]!;
  let index = -1;
  for (let i = turn.items.length - 1; i >= 0; i--) {
    const item = turn.items[i]!;
    if (item.kind === 'message' && item.role === 'assistant' && item.uuid === undefined && item.apiId === message.id) {
      index = i;
      break;
    }
  }
  const finalParts = (m: MessageView): Part[] =>
    message.content.map((block, blockIndex) => partFromBlock(m.key, blockIndex, block, m.parts.find((p) => p.blockIndex === blockIndex)));
  if (index !== -1) {
    return updateOpenTurn(open, (t) =>
      updateItem(t, index, (item) => {
        const m = item as MessageView;
        const parts = finalParts(m);
        const same = parts.length === m.parts.length && parts.every((p, i) => p === m.parts[i]);
        return { ...settleMessage(m), uuid, parts: same ? m.parts : parts };
      }),
    );
  }
  const [key, keyed] = takeKey(open, 'm');
  const base: MessageView = { kind: 'message', key, role: 'assistant', uuid, apiId: message.id, model: message.model, reason: undefined, parts: [], streaming: false };
  const whole: MessageView = { ...base, parts: finalParts(base) };
  return indexTools(
    updateOpenTurn(keyed, (t) => appendItem(t, whole)),
    whole.parts.flatMap((p) => (p.kind === 'tool' ? [p.id] : [])),
  );
}
