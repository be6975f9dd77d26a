/**
 * Two tool_use blocks of one response with the same id (seen from proxies and other backends):
 * the decoder renames the repeats, so every later stage sees unique ids, each call gets exactly
 * one tool_result, and the next request is valid.
 */
import { describe, expect, it } from 'vitest';
import { createStreamEventDecoder } from '../../src/transport/streamEventDecoder.js';
import { toolUseIdsOf } from '../../src/transport/uniqueToolUseIds.js';
import type { TransportOutput } from '../../src/transport/types.js';
import { validateMessagesRequest } from '../../src/testing/validateRequest.js';
import type { ContentBlock, MessageParam } from '../../src/protocol/content.js';
import { seededRandom } from '../corpus/corpus.js';
import { messageStart, sseEvent } from './sseFixtures.js';
import { message, runOverHttp, taggedEchoTool, text, toolUse } from '../loop/helpers.js';

const toolStart = (index: number, id: string, type = 'tool_use') =>
  sseEvent({ type: 'content_block_start', index, content_block: { type, id, name: 'echo', input: {} } });
const blockStop = (index: number) => sseEvent({ type: 'content_block_stop', index });
const end = sseEvent({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 1 } }) + sseEvent({ type: 'message_stop' });

function decodeAll(sse: string, takenToolUseIds?: ReadonlySet<string>): TransportOutput[] {
  const decoder = createStreamEventDecoder(takenToolUseIds ? { takenToolUseIds } : {});
  const first = decoder.push(sse);
  const last = decoder.end();
  expect(first.error ?? last.error).toBeUndefined();
  return [...first.outputs, ...last.outputs];
}

const startedIds = (outputs: readonly TransportOutput[]) =>
  outputs.flatMap((o) => (o.type === 'content_block_start' && 'id' in o.content_block ? [o.content_block.id] : []));
const notes = (outputs: readonly TransportOutput[]) =>
  outputs.flatMap((o) => (o.type === 'debug' && o.message.startsWith('duplicate tool_use id') ? [o] : []));

describe('duplicate tool_use ids in one response', () => {
  it('renames the second and third use, skipping a name the message already used', () => {
    const blocks = [toolStart(0, 't'), toolStart(1, 't__dup2'), toolStart(2, 't'), toolStart(3, 't'), toolStart(4, 'u')];
    const outputs = decodeAll(sseEvent(messageStart) + blocks.map((b, i) => b + blockStop(i)).join('') + end);
    expect(startedIds(outputs)).toEqual(['t', 't__dup2', 't__dup3', 't__dup4', 'u']);
    expect(notes(outputs).map((n) => n.data)).toEqual([
      { id: 't', renamed: 't__dup3', index: 2 },
      { id: 't', renamed: 't__dup4', index: 3 },
    ]);
    // Each note comes right after the block start it talks about.
    const at = outputs.findIndex((o) => o.type === 'debug');
    expect(outputs[at - 1]).toMatchObject({ type: 'content_block_start', index: 2 });
  });

  it('leaves unique ids and server tool calls as sent (a server call is paired by the server)', () => {
    const sse = sseEvent(messageStart) + toolStart(0, 's', 'server_tool_use') + blockStop(0) + toolStart(1, 's', 'server_tool_use') + blockStop(1) + toolStart(2, 'a') + blockStop(2) + end;
    const outputs = decodeAll(sse);
    expect(startedIds(outputs)).toEqual(['s', 's', 'a']);
    expect(notes(outputs)).toEqual([]);
  });

  it('renames within the complete blocks of a message_start, and against the blocks streamed after them', () => {
    const prefilled = { type: 'tool_use', id: 'p', name: 'echo', input: {} };
    const start = { ...messageStart, message: { ...messageStart.message, content: [prefilled, prefilled] } };
    const outputs = decodeAll(sseEvent(start) + toolStart(2, 'p') + blockStop(2) + end);
    const started = outputs[0];
    expect(started?.type).toBe('message_start');
    const content = started?.type === 'message_start' ? (started.message.content as ContentBlock[]) : [];
    expect(content.map((b) => (b.type === 'tool_use' ? b.id : b.type))).toEqual(['p', 'p__dup2']);
    expect(startedIds(outputs)).toEqual(['p__dup3']);
    expect(notes(outputs)).toHaveLength(2);
  });

  it('starts afresh at each message: the same id in two responses is not renamed by the decoder', () => {
    for (let i = 0; i < 2; i++) {
      const outputs = decodeAll(sseEvent(messageStart) + toolStart(0, 'same') + blockStop(0) + end);
      expect(startedIds(outputs)).toEqual(['same']);
    }
  });

  it('through agentLoop over HTTP: every call runs once, gets exactly one result, and the next request is valid', async () => {
    const { events, terminal, requests } = await runOverHttp(
      [
        message([toolUse('echo', { x: 'one' }, 'toolu_same'), toolUse('echo', { x: 'two' }, 'toolu_same'), toolUse('echo', { x: 'three' }, 'toolu_same')]),
        message([text('done')]),
      ],
      { tools: [taggedEchoTool] },
    );
    expect(terminal).toMatchObject({ type: 'terminal', reason: 'completed' });
    expect(requests).toHaveLength(2);
    for (const r of requests) expect(r.validationErrors).toEqual([]);

    const ids = ['toolu_same', 'toolu_same__dup2', 'toolu_same__dup3'];
    const started = events.flatMap((e) => (e.type === 'tool_start' ? [e.toolUseId] : []));
    expect(started.sort()).toEqual([...ids].sort());

    const second = requests[1]!.body!;
    expect(validateMessagesRequest(second)).toEqual([]);
    const assistant = second.messages.at(-2)!;
    const uses = (assistant.content as ContentBlock[]).flatMap((b) => (b.type === 'tool_use' ? [[b.id, b.input]] : []));
    expect(uses).toEqual([
      [ids[0], { x: 'one' }],
      [ids[1], { x: 'two' }],
      [ids[2], { x: 'three' }],
    ]);
    const results = (second.messages.at(-1)!.content as ContentBlock[]).flatMap((b) =>
      b.type === 'tool_result' ? [[b.tool_use_id, JSON.stringify(b.content)]] : [],
    );
    expect(results.map(([id]) => id)).toEqual(ids);
    // Each result is its own call's: the renamed calls are not answered with the first one's output.
    expect(results.map(([, content]) => content)).toEqual([
      expect.stringContaining('echo:one'),
      expect.stringContaining('echo:two'),
      expect.stringContaining('echo:three'),
    ]);
    const debugNotes = events.filter((e) => e.type === 'model' && e.event.type === 'debug' && e.event.message.startsWith('duplicate tool_use id'));
    expect(debugNotes).toHaveLength(2);
  });
});

describe('a tool_use id reused from an earlier turn', () => {
  it("is renamed against the history's ids, in every attempt (a retry decodes with the same ids)", () => {
    const taken = new Set(['old', 'old__dup2']);
    const once = sseEvent(messageStart) + toolStart(0, 'old') + blockStop(0) + toolStart(1, 'old') + blockStop(1) + toolStart(2, 'new') + blockStop(2) + end;
    for (const outputs of [decodeAll(once, taken), decodeAll(once, taken)]) {
      expect(startedIds(outputs)).toEqual(['old__dup3', 'old__dup4', 'new']);
      expect(notes(outputs).map((n) => n.message)).toEqual([
        'duplicate tool_use id "old" already used by an earlier turn; the block at index 0 is renamed "old__dup3"',
        'duplicate tool_use id "old" already used by an earlier turn; the block at index 1 is renamed "old__dup4"',
      ]);
    }
    expect([...taken]).toEqual(['old', 'old__dup2']); // the caller's set is read, never written
    // The prefilled blocks of a message_start are checked against the history as well.
    const prefilled = { ...messageStart, message: { ...messageStart.message, content: [{ type: 'tool_use', id: 'old', name: 'echo', input: {} }] } };
    const started = decodeAll(sseEvent(prefilled) + end, taken)[0];
    const content = started?.type === 'message_start' ? (started.message.content as ContentBlock[]) : [];
    expect(content.map((b) => (b.type === 'tool_use' ? b.id : b.type))).toEqual(['old__dup3']);
  });

  it("the history's ids are those of its assistant tool_use blocks only", () => {
    const ids = toolUseIdsOf([
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'r', content: 'x' }] },
      { role: 'assistant', content: 'plain text' },
      { role: 'assistant', content: [{ type: 'text', text: 'hi' }, { type: 'tool_use', id: 'a', name: 'echo', input: {} }, { type: 'server_tool_use', id: 's', name: 'web_search', input: {} }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'b', name: 'echo', input: {} }] },
    ] as never);
    expect([...ids]).toEqual(['a', 'b']);
  });

  it("answers like a plain set of the history's ids, before and after it builds one (many lookups)", () => {
    const history = Array.from({ length: 40 }, (_, turn) => ({
      role: 'assistant' as const,
      content: turn % 3 === 0 ? [{ type: 'text' as const, text: 't' }] : [{ type: 'tool_use' as const, id: `id${turn}`, name: 'echo', input: {} }, { type: 'tool_use' as const, id: `id${turn}b`, name: 'echo', input: {} }],
    }));
    const expected = new Set(history.flatMap((m) => m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : []))));
    const ids = toolUseIdsOf(history);
    // More lookups than the scans it makes before building its set: both paths are checked.
    const probes = ['id1', 'id0', 'id3', 'id39b', 'nope', 'id2b', 'id1', 'x', 'id38', 'id39', 'id40', 'id4b'];
    expect(probes.map((id) => ids.has(id))).toEqual(probes.map((id) => expected.has(id)));
    expect(ids.size).toBe(expected.size);
    expect([...ids]).toEqual([...expected]);
    expect([...ids.keys()]).toEqual([...expected.keys()]);
    const seen: string[] = [];
    ids.forEach((id, key, set) => seen.push(`${id}=${key}:${set === ids}`));
    expect(seen).toEqual([...expected].map((id) => `${id}=${id}:true`));
    // A fresh view answers before any set exists, too.
    expect(toolUseIdsOf(history).has('id2')).toBe(true);
    expect(toolUseIdsOf(history).has('id3')).toBe(false);
  });

  it('answers for its own history while the conversation grows, is cut short or is rewritten (fuzz)', () => {
    const rand = seededRandom(5);
    const call = (id: string) => ({ type: 'tool_use' as const, id, name: 'echo', input: {} });
    const head = { role: 'user' as const, content: 'start' };
    let history: MessageParam[] = [head];
    const views: { ids: ReadonlySet<string>; expected: string[] }[] = [];
    for (let step = 0; step < 400; step++) {
      const roll = rand();
      if (roll < 0.1) history = history.slice(0, 1 + Math.floor(rand() * history.length)); // cut short
      else if (roll < 0.2 && history.length > 2) {
        // A message in the middle replaced (compaction builds new objects).
        const at = 1 + Math.floor(rand() * (history.length - 1));
        history = [...history.slice(0, at), { role: 'assistant', content: [call(`new${step}`)] }, ...history.slice(at + 1)];
      } else {
        // A turn: ids repeat now and then, and some messages hold none.
        const id = `id${Math.floor(rand() * 300)}`;
        history = [...history, { role: 'assistant', content: rand() < 0.2 ? 'text' : [call(id), ...(rand() < 0.3 ? [call(`${id}b`)] : [])] }, { role: 'user', content: 'ok' }];
      }
      const expected = [...new Set(history.flatMap((m) => (m.role === 'assistant' && typeof m.content !== 'string' ? m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : [])))];
      views.push({ ids: toolUseIdsOf(history), expected });
    }
    // Every view, read after all the later requests, is still its own history's set.
    for (const { ids, expected } of views) {
      expect([...ids]).toEqual(expected);
      expect(ids.size).toBe(expected.length);
      for (const probe of ['id1', 'id7b', 'id150', 'new12', 'nope']) expect(ids.has(probe)).toBe(expected.includes(probe));
    }
  });

  it('answers for its own history when messages are sent as copies, with the same calls or not (fuzz)', () => {
    // A request marks its last message with a cache breakpoint (a copy); the next request sends
    // the original. Copies with the same calls, and copies whose calls changed, at any index.
    const rand = seededRandom(11);
    const call = (id: string, extra = {}) => ({ type: 'tool_use' as const, id, name: 'echo', input: {}, ...extra });
    const head = { role: 'user' as const, content: 'start' };
    let history: MessageParam[] = [head];
    const views: { ids: ReadonlySet<string>; expected: string[] }[] = [];
    const copyAt = (messages: MessageParam[], at: number, changeCalls: boolean): MessageParam[] => {
      const m = messages[at]!;
      const content = typeof m.content === 'string' ? m.content : m.content.map((b) => (b.type === 'tool_use' ? (changeCalls ? call(`${b.id}x`) : call(b.id, { cache_control: { type: 'ephemeral' } })) : { ...b }));
      return [...messages.slice(0, at), { ...m, content } as MessageParam, ...messages.slice(at + 1)];
    };
    for (let step = 0; step < 600; step++) {
      const roll = rand();
      if (roll < 0.35 && history.length > 1) history = copyAt(history, history.length - 1 - Math.floor(rand() * Math.min(3, history.length - 1)), false);
      else if (roll < 0.45 && history.length > 1) history = copyAt(history, 1 + Math.floor(rand() * (history.length - 1)), true);
      else if (roll < 0.5) history = history.slice(0, 1 + Math.floor(rand() * history.length));
      else {
        const id = `id${Math.floor(rand() * 200)}`;
        history = [...history, { role: 'assistant', content: rand() < 0.2 ? 'text' : [call(id), ...(rand() < 0.3 ? [call(`${id}b`)] : [])] }, { role: 'user', content: 'ok' }];
      }
      const expected = [...new Set(history.flatMap((m) => (m.role === 'assistant' && typeof m.content !== 'string' ? m.content.flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : [])))];
      views.push({ ids: toolUseIdsOf(history), expected });
    }
    for (const { ids, expected } of views) {
      expect([...ids]).toEqual(expected);
      for (const probe of ['id1', 'id7b', 'id150x', 'id3x', 'nope']) expect(ids.has(probe)).toBe(expected.includes(probe));
    }
  });

  it('through agentLoop over HTTP: the reused id is renamed, each call gets exactly one result, every request is valid', async () => {
    const { events, terminal, requests } = await runOverHttp(
      [
        message([toolUse('echo', { x: 'one' }, 'toolu_again')]),
        message([toolUse('echo', { x: 'two' }, 'toolu_again'), toolUse('echo', { x: 'three' }, 'toolu_again')]),
        message([text('done')]),
      ],
      { tools: [taggedEchoTool] },
    );
    expect(terminal).toMatchObject({ type: 'terminal', reason: 'completed' });
    expect(requests).toHaveLength(3);
    for (const r of requests) expect(r.validationErrors).toEqual([]);
    const last = requests[2]!.body!;
    expect(validateMessagesRequest(last)).toEqual([]);

    const ids = ['toolu_again', 'toolu_again__dup2', 'toolu_again__dup3'];
    const uses = last.messages.flatMap((m) =>
      m.role === 'assistant' && typeof m.content !== 'string' ? m.content.flatMap((b) => (b.type === 'tool_use' ? [[b.id, b.input]] : [])) : [],
    );
    expect(uses).toEqual([
      [ids[0], { x: 'one' }],
      [ids[1], { x: 'two' }],
      [ids[2], { x: 'three' }],
    ]);
    // Exactly one result per call, each with its own call's output.
    const results = last.messages.flatMap((m) =>
      m.role === 'user' && typeof m.content !== 'string' ? m.content.flatMap((b) => (b.type === 'tool_result' ? [[b.tool_use_id, JSON.stringify(b.content)]] : [])) : [],
    );
    expect(results.map(([id]) => id)).toEqual(ids);
    expect(results.map(([, content]) => content)).toEqual([
      expect.stringContaining('echo:one'),
      expect.stringContaining('echo:two'),
      expect.stringContaining('echo:three'),
    ]);
    expect(events.flatMap((e) => (e.type === 'tool_start' ? [e.toolUseId] : [])).sort()).toEqual([...ids].sort());
    const reuseNotes = events.filter((e) => e.type === 'model' && e.event.type === 'debug' && e.event.message.includes('already used by an earlier turn'));
    expect(reuseNotes).toHaveLength(2);
  });
});
