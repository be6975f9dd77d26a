import { describe, expect, it } from 'vitest';
import { rebuildMessages, SESSION_ENDED_TOOL_RESULT } from '../../src/session/rebuild.js';
import { validateMessagesRequest } from '../../src/testing/validateRequest.js';
import type { SessionRecord } from '../../src/session/records.js';
import { ChainBuilder, requestWith, text, toolResult, toolUse } from './helpers.js';

const valid = (messages: Parameters<typeof requestWith>[0]) => expect(validateMessagesRequest(requestWith(messages))).toEqual([]);

describe('rebuildMessages', () => {
  it('gives an empty view for an empty transcript', () => {
    const view = rebuildMessages([]);
    expect(view).toMatchObject({ messages: [], messageUuids: [], leafUuid: null, tailRepair: undefined, warnings: [] });
  });

  it('returns the messages of a clean chain unchanged, with their uuids, ignoring system records', () => {
    const c = new ChainBuilder('s');
    const u1 = c.user('hi');
    c.system('init', { model: 'm' });
    const a1 = c.assistant([text('reading'), toolUse('t1')]);
    const u2 = c.user([toolResult('t1')]);
    const a2 = c.assistant('done');
    const view = rebuildMessages(c.records);
    expect(view.messages).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [text('reading'), toolUse('t1')] },
      { role: 'user', content: [toolResult('t1')] },
      { role: 'assistant', content: 'done' },
    ]);
    expect(view.messageUuids).toEqual([u1.uuid, a1.uuid, u2.uuid, a2.uuid]);
    expect(view.leafUuid).toBe(a2.uuid);
    expect(view.warnings).toEqual([]);
    valid(view.messages);
  });

  it('answers a turn cut off mid-tool with synthetic error results so the next request is valid', () => {
    const c = new ChainBuilder('s');
    c.user('go');
    c.assistant([text('two tools'), toolUse('t1'), toolUse('t2')]);
    const view = rebuildMessages(c.records);
    const synthetic = [
      { type: 'tool_result', tool_use_id: 't1', content: SESSION_ENDED_TOOL_RESULT, is_error: true },
      { type: 'tool_result', tool_use_id: 't2', content: SESSION_ENDED_TOOL_RESULT, is_error: true },
    ];
    expect(view.messages[2]).toEqual({ role: 'user', content: synthetic });
    expect(view.tailRepair).toEqual({ role: 'user', content: synthetic });
    expect(view.warnings.map((w) => w.kind)).toEqual(['synthetic_tool_result', 'synthetic_tool_result']);
    valid(view.messages);
  });

  it('completes a partly answered tool batch (results recorded one by one) in the same user message', () => {
    const c = new ChainBuilder('s');
    c.user('go');
    c.assistant([toolUse('t1'), toolUse('t2'), toolUse('t3')]);
    c.user([toolResult('t2', 'second')]);
    c.user([toolResult('t1', 'first')]);
    const view = rebuildMessages(c.records);
    expect(view.messages).toHaveLength(3);
    expect(view.messages[2]!.content).toEqual([
      toolResult('t2', 'second'),
      toolResult('t1', 'first'),
      { type: 'tool_result', tool_use_id: 't3', content: SESSION_ENDED_TOOL_RESULT, is_error: true },
    ]);
    expect(view.tailRepair?.content).toEqual([{ type: 'tool_result', tool_use_id: 't3', content: SESSION_ENDED_TOOL_RESULT, is_error: true }]);
    valid(view.messages);
  });

  it('re-reading a transcript with its tail repair persisted yields the same view and no new repair', () => {
    const c = new ChainBuilder('s');
    c.user('go');
    c.assistant([toolUse('t1'), toolUse('t2')]);
    c.user([toolResult('t1')]);
    const first = rebuildMessages(c.records);
    c.user(first.tailRepair!.content as never);
    const second = rebuildMessages(c.records);
    expect(second.messages).toEqual(first.messages);
    expect(second.tailRepair).toBeUndefined();
  });

  it('merges consecutive same-role messages, tool results first', () => {
    const c = new ChainBuilder('s');
    c.user('first');
    c.user('queued while busy');
    c.assistant([toolUse('t1')]);
    c.user([text('a note'), toolResult('t1')]);
    c.user([toolResult('x-unknown'), text('later')]);
    c.assistant('part one');
    c.assistant([text('part two')]);
    const view = rebuildMessages(c.records);
    expect(view.messages).toEqual([
      { role: 'user', content: [text('first'), text('queued while busy')] },
      { role: 'assistant', content: [toolUse('t1')] },
      { role: 'user', content: [toolResult('t1'), text('a note'), text('later')] },
      { role: 'assistant', content: [text('part one'), text('part two')] },
    ]);
    expect(view.warnings).toEqual([expect.objectContaining({ kind: 'orphan_tool_result', toolUseId: 'x-unknown' })]);
    valid(view.messages);
  });

  it('answers a tool_use whose result is missing in the middle of the history (a lost line)', () => {
    const c = new ChainBuilder('s');
    c.user('go');
    c.assistant([toolUse('t1')]);
    c.user('the user typed instead');
    c.assistant('ok');
    const view = rebuildMessages(c.records);
    expect(view.messages[2]).toEqual({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: 't1', content: SESSION_ENDED_TOOL_RESULT, is_error: true }, text('the user typed instead')],
    });
    expect(view.tailRepair).toBeUndefined();
    valid(view.messages);
  });

  it('applies tombstones: a failed attempt and its results disappear', () => {
    const c = new ChainBuilder('s');
    c.user('go');
    const failed = c.assistant([text('attempt 1'), toolUse('t1')]);
    const failedResults = c.user([toolResult('t1')]);
    c.tombstone([failed.uuid, failedResults.uuid]);
    c.assistant('attempt 2');
    const view = rebuildMessages(c.records);
    expect(view.messages).toEqual([
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'attempt 2' },
    ]);
    valid(view.messages);
  });

  it('starts from the last compact boundary: its summary and what follows', () => {
    const c = new ChainBuilder('s');
    c.user('old question');
    c.assistant('old answer');
    c.boundary([{ role: 'user', content: 'summary one' }]);
    c.assistant('after one');
    c.user('next');
    c.assistant([toolUse('t9')]);
    c.user([toolResult('t9')]);
    const [boundary] = c.boundary([
      { role: 'user', content: 'summary two' },
      { role: 'assistant', content: 'kept verbatim' },
    ]);
    c.user('after two');
    const view = rebuildMessages(c.records);
    expect(view.compactBoundary?.uuid).toBe(boundary!.uuid);
    expect(view.messages).toEqual([
      { role: 'user', content: 'summary two' },
      { role: 'assistant', content: 'kept verbatim' },
      { role: 'user', content: 'after two' },
    ]);
    valid(view.messages);
  });

  it('drops trailing thinking blocks and thinking-only replies as the loop replays them', () => {
    const c = new ChainBuilder('s');
    c.user('q');
    c.assistant([{ type: 'thinking', thinking: 'hmm', signature: 'sig' }]);
    c.user('please answer');
    c.assistant([{ type: 'thinking', thinking: 'ok', signature: 'sig' }, text('answer'), { type: 'thinking', thinking: 'x', signature: 's' }]);
    const view = rebuildMessages(c.records);
    expect(view.messages).toEqual([
      { role: 'user', content: [text('q'), text('please answer')] },
      { role: 'assistant', content: [{ type: 'thinking', thinking: 'ok', signature: 'sig' }, text('answer')] },
    ]);
    valid(view.messages);
  });

  it('bridges a broken chain (a skipped record) and keeps everything else', () => {
    const c = new ChainBuilder('s');
    const u1 = c.user('one');
    const lost = c.assistant('two');
    const u3 = c.user('three');
    const records = c.records.filter((r) => r !== lost);
    const view = rebuildMessages(records);
    expect(view.messageUuids).toEqual([u3.uuid]); // the two users merge into one message
    expect(view.messages).toEqual([{ role: 'user', content: [text('one'), text('three')] }]);
    expect(view.warnings).toEqual([expect.objectContaining({ kind: 'broken_chain', uuid: u3.uuid })]);
    expect(u1.uuid).not.toBe(u3.uuid);
  });

  it('follows the chain from the last record, leaving out a dead branch', () => {
    const c = new ChainBuilder('s');
    const root = c.user('root');
    c.assistant('dead branch');
    const branch: SessionRecord = { ...c.assistant('live branch'), parentUuid: root.uuid };
    const records = [...c.records.slice(0, 2), branch];
    expect(rebuildMessages(records).messages).toEqual([
      { role: 'user', content: 'root' },
      { role: 'assistant', content: 'live branch' },
    ]);
  });

  it('puts a placeholder user message before a view that would start with an assistant message', () => {
    const c = new ChainBuilder('s');
    c.boundary([{ role: 'assistant', content: 'summary as assistant' }]);
    const view = rebuildMessages(c.records);
    expect(view.messages[0]!.role).toBe('user');
    expect(view.warnings).toEqual([expect.objectContaining({ kind: 'repaired_view' })]);
    valid(view.messages);
  });

  // Speed is measured by bench/session.bench.ts, not asserted here (the test machine is shared).
  it('rebuilds 20,000 records (the first, an assistant message, gets a placeholder before it)', () => {
    const c = new ChainBuilder('s');
    for (let i = 0; i < 10_000; i++) {
      c.assistant([text(`step ${i}`), toolUse(`t${i}`)]);
      c.user([toolResult(`t${i}`)]);
    }
    const view = rebuildMessages(c.records);
    expect(view.messages).toHaveLength(20_001);
    valid(view.messages);
  });
});
