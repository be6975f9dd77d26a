/**
 * Blocks are an open set (SPEC §14): server tool blocks, compaction and types newer than this
 * version are assembled from their start plus their deltas, message fields beyond stop reason and
 * usage are kept, and what cannot be applied comes out as a warning instead of being lost.
 */
import { describe, expect, it } from 'vitest';
import { applyEvent, createAssemblyState } from '../../src/assembly/reducer.js';
import type { AssemblyOutput } from '../../src/assembly/types.js';
import type { StreamEvent } from '../../src/protocol/events.js';
import type { TransportOutput } from '../../src/transport/types.js';
import { blockStop, json, messageDelta, messageStart, messageStop, text, textStart, toolStart } from './events.js';

function fold(events: readonly TransportOutput[]): AssemblyOutput[] {
  const state = createAssemblyState();
  return events.flatMap((event) => applyEvent(state, event).emitted);
}
function messageOf(events: readonly TransportOutput[]) {
  const last = fold(events).at(-1);
  if (last?.type !== 'message') throw new Error(`expected a message last, got ${last?.type}`);
  return last.message;
}
const start = (index: number, block: Record<string, unknown>) => ({ type: 'content_block_start', index, content_block: block }) as unknown as StreamEvent;
const delta = (index: number, d: Record<string, unknown>) => ({ type: 'content_block_delta', index, delta: d }) as unknown as StreamEvent;
const S = messageStart();

describe('open set of content blocks', () => {
  it('assembles server_tool_use with its streamed input parsed, and keeps the result block whole', () => {
    const result = {
      type: 'web_search_tool_result',
      tool_use_id: 'srvtoolu_1',
      content: [{ type: 'web_search_result', url: 'https://example.com', title: 'Example', encrypted_content: 'abc', page_age: null }],
    };
    const message = messageOf([
      S,
      start(0, { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }),
      json(0, '{"query": "rx'),
      json(0, 'js"}'),
      blockStop(0),
      start(1, result),
      blockStop(1),
      messageDelta('end_turn'),
      messageStop,
    ]);
    expect(message.content).toEqual([{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'rxjs' } }, result]);
  });

  it('streams a server call input as tool_input_delta for display', () => {
    const out = fold([S, start(0, { type: 'server_tool_use', id: 's1', name: 'web_fetch', input: {} }), json(0, '{"url":')]);
    expect(out.at(-1)).toEqual({ type: 'tool_input_delta', index: 0, id: 's1', name: 'web_fetch', partialJson: '{"url":', receivedChars: 7 });
  });

  it('appends citations_delta to the citations of a text block and of a generic block', () => {
    const c1 = { type: 'web_search_result_location', url: 'https://a', cited_text: 'x' };
    const c2 = { type: 'char_location', document_index: 0, cited_text: 'y' };
    const message = messageOf([
      S,
      textStart(0),
      delta(0, { type: 'citations_delta', citation: c1 }),
      text(0, 'cited'),
      blockStop(0),
      start(1, { type: 'future_quote', text: '', citations: null }),
      delta(1, { type: 'citations_delta', citation: c2 }),
      delta(1, { type: 'text_delta', text: 'q' }),
      blockStop(1),
      messageStop,
    ]);
    expect(message.content).toEqual([
      { type: 'text', text: 'cited', citations: [c1] },
      { type: 'future_quote', text: 'q', citations: [c2] },
    ]);
  });

  it('applies compaction_delta and unknown deltas field by field: strings appended, null filled, new fields set', () => {
    const message = messageOf([
      S,
      start(0, { type: 'compaction', content: null }),
      delta(0, { type: 'compaction_delta', content: 'Summary: ', encrypted_content: 'E1' }),
      delta(0, { type: 'compaction_delta', content: 'the user asked for X.' }),
      blockStop(0),
      start(1, { type: 'hologram', frames: [1] }),
      delta(1, { type: 'hologram_delta', frames: [2, 3], colour: { r: 1 } }),
      blockStop(1),
      messageStop,
    ]);
    expect(message.content).toEqual([
      { type: 'compaction', content: 'Summary: the user asked for X.', encrypted_content: 'E1' },
      { type: 'hologram', frames: [1, 2, 3], colour: { r: 1 } },
    ]);
  });

  it('keeps a block unchanged and warns (with the delta) when a delta cannot be applied; no field half applied', () => {
    const out = fold([
      S,
      start(0, { type: 'gizmo', label: 'a', size: 3 }),
      delta(0, { type: 'gizmo_delta', label: 'b', size: { big: true } }),
      blockStop(0),
      messageStop,
    ]);
    const warning = out.find((o) => o.type === 'warning');
    expect(warning).toMatchObject({ type: 'warning', message: expect.stringContaining('field "size"'), data: { type: 'gizmo_delta' } });
    expect(out.at(-1)).toMatchObject({ type: 'message', message: { content: [{ type: 'gizmo', label: 'a', size: 3 }] } });
  });

  it('applies an unknown delta to a core block beside its own fields, but never over them', () => {
    const out = fold([
      S,
      textStart(0),
      text(0, 'hi'),
      delta(0, { type: 'annotation_delta', note: 'n' }),
      delta(0, { type: 'rewrite_delta', text: 'hijack' }),
      blockStop(0),
      messageStop,
    ]);
    expect(out.filter((o) => o.type === 'warning')).toHaveLength(1);
    expect(out.at(-1)).toMatchObject({ message: { content: [{ type: 'text', text: 'hi', note: 'n' }] } });
  });

  it('keeps a server call whose streamed input is not JSON with its start input, and says so', () => {
    const out = fold([S, start(0, { type: 'server_tool_use', id: 's', name: 'bash_code_execution', input: {} }), json(0, '{"cmd"'), blockStop(0), messageStop]);
    expect(out.some((o) => o.type === 'warning' && /not valid JSON/.test(o.message))).toBe(true);
    expect(out.at(-1)).toMatchObject({ message: { content: [{ type: 'server_tool_use', input: {} }] } });
  });
});

describe('message fields beyond stop reason and usage', () => {
  it('puts container, stop_details and context_management where the non-streaming body has them', () => {
    const container = { id: 'container_1', expires_at: '2026-12-01T10:00:00Z' };
    const md = {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null, container, stop_details: null },
      usage: { input_tokens: null, output_tokens: 9, server_tool_use: { web_search_requests: 2 }, iterations: [{ type: 'message', input_tokens: 5 }] },
      context_management: { applied_edits: [] },
    } as unknown as StreamEvent;
    const message = messageOf([messageStart({ input_tokens: 30, output_tokens: 1 }), textStart(0), text(0, 'x'), blockStop(0), md, messageStop]);
    expect(message).toMatchObject({
      container,
      stop_details: null,
      context_management: { applied_edits: [] },
      stop_reason: 'end_turn',
      // A null input_tokens keeps the start's count.
      usage: { input_tokens: 30, output_tokens: 9, server_tool_use: { web_search_requests: 2 }, iterations: [{ type: 'message', input_tokens: 5 }] },
    });
  });

  it('keeps content sent in message_start (programmatic tool calling) and emits each block', () => {
    const call = { type: 'tool_use', id: 'toolu_p', name: 'rollDie', input: { player: 'p2' }, caller: { type: 'code_execution_20250825', tool_id: 'srvtoolu_x' } };
    const ms = {
      type: 'message_start',
      message: {
        id: 'msg_p', type: 'message', role: 'assistant', model: 'm', content: [call],
        container: { id: 'container_p', expires_at: 'later' }, stop_reason: 'tool_use', stop_sequence: null,
        usage: { input_tokens: 0, output_tokens: 0 },
      },
    } as unknown as StreamEvent;
    const out = fold([ms, messageStop]);
    expect(out.map((o) => o.type)).toEqual(['message_start', 'block', 'message']);
    expect(out[1]).toEqual({ type: 'block', index: 0, block: call });
    expect(out[2]).toMatchObject({ message: { content: [call], stop_reason: 'tool_use', container: { id: 'container_p' } } });
  });

  it('accepts any stop reason string (a newer one is the loop\'s business, not an assembly error)', () => {
    const message = messageOf([S, textStart(0), text(0, 'x'), blockStop(0), messageDelta('model_context_window_exceeded'), messageStop]);
    expect(message.stop_reason).toBe('model_context_window_exceeded');
  });
});

describe('repairs seen in recordings, each with a warning', () => {
  it('takes a start that repeats the index of the block just stopped as the next index', () => {
    const out = fold([S, textStart(0), text(0, 'a'), blockStop(0), textStart(0), text(1, 'b'), blockStop(1), messageStop]);
    expect(out.filter((o) => o.type === 'warning')).toHaveLength(1);
    expect(out.at(-1)).toMatchObject({ message: { content: [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }] } });
  });

  it('closes blocks left open at message_stop, a cut tool input becoming an invalid tool_use', () => {
    const out = fold([S, textStart(0), text(0, 'a'), toolStart(1), json(1, '{"pa'), messageDelta('max_tokens'), messageStop]);
    const types = out.map((o) => o.type);
    expect(types.slice(-5)).toEqual(['warning', 'block', 'warning', 'block', 'message']);
    const block = out.filter((o) => o.type === 'block').at(-1);
    expect(block).toMatchObject({ block: { type: 'tool_use', input: {}, invalid: { rawInput: '{"pa' } } });
    expect(out.at(-1)).toMatchObject({ message: { content: [{ type: 'text', text: 'a' }, { type: 'tool_use', id: 'toolu_1', input: {} }] } });
  });
});
