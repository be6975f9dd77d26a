import { describe, expect, it } from 'vitest';
import { readFile, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import type { JsonlSessionStore } from '../../src/session/jsonlSessionStore.js';
import { continueLatest, fork, resume, startSession } from '../../src/session/sessions.js';
import { SessionLockedError, SessionNotFoundError } from '../../src/session/errors.js';
import { SESSION_ENDED_TOOL_RESULT } from '../../src/session/rebuild.js';
import type { TranscriptRecord } from '../../src/loop/seams.js';
import type { AssistantMessage, ContentBlock } from '../../src/protocol/content.js';
import { validateMessagesRequest } from '../../src/testing/validateRequest.js';
import { useTempStore, requestWith, text, toolResult, toolUse } from './helpers.js';

let dir: string;
let store: JsonlSessionStore;
useTempStore((d, s) => {
  dir = d;
  store = s;
});

let counter = 0;
const tracking = { chainId: 'chain-1', depth: 0, timestamp: Date.parse('2026-02-03T04:05:06.000Z') };
const loopUser = (content: string | ContentBlock[], reason: 'prompt' | 'tool_results' = 'prompt'): TranscriptRecord => ({
  ...tracking,
  type: 'user',
  uuid: `u-${++counter}`,
  parentUuid: undefined,
  message: { role: 'user', content },
  reason,
  isMeta: false,
});
const loopAssistant = (content: AssistantMessage['content']): TranscriptRecord => ({
  ...tracking,
  type: 'assistant',
  uuid: `a-${++counter}`,
  parentUuid: undefined,
  message: {
    id: `msg_${counter}`,
    type: 'message',
    role: 'assistant',
    model: 'test-model',
    content,
    stop_reason: content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn',
    usage: { input_tokens: 10, output_tokens: 5 },
  },
});

const validRequest = (messages: Parameters<typeof requestWith>[0]) => expect(validateMessagesRequest(requestWith(messages))).toEqual([]);

describe('sessions', () => {
  it('records what the loop hands the sink and resumes into the same messages', async () => {
    const session = await startSession(store, { sessionId: 's1', version: '1.2.3' });
    expect(session.messages).toEqual([]);
    await session.sink.append([loopUser('read a.txt'), loopAssistant([text('reading'), toolUse('t1')])]);
    await session.sink.append([loopUser([toolResult('t1', 'A')], 'tool_results'), loopAssistant([text('done')])]);
    await session.close();

    const { records } = await store.read('s1');
    expect(records.map((r) => r.parentUuid)).toEqual([null, ...records.slice(0, -1).map((r) => r.uuid)]);
    expect(records[1]).toMatchObject({
      type: 'assistant',
      sessionId: 's1',
      version: '1.2.3',
      cwd: '/work/project',
      timestamp: '2026-02-03T04:05:06.000Z',
      chainId: 'chain-1',
      depth: 0,
      messageId: expect.stringMatching(/^msg_/),
      model: 'test-model',
      stopReason: 'tool_use',
      usage: { input_tokens: 10, output_tokens: 5 },
      message: { role: 'assistant', content: [text('reading'), toolUse('t1')] },
    });
    expect(records[2]).toMatchObject({ type: 'user', reason: 'tool_results', isMeta: false });

    const resumed = await resume(store, 's1');
    expect(resumed.messages).toEqual([
      { role: 'user', content: 'read a.txt' },
      { role: 'assistant', content: [text('reading'), toolUse('t1')] },
      { role: 'user', content: [toolResult('t1', 'A')] },
      { role: 'assistant', content: [text('done')] },
    ]);
    expect(resumed.warnings).toEqual([]);
    // New records continue the chain after the last one.
    await resumed.sink.append([loopUser('again')]);
    await resumed.close();
    const after = (await store.read('s1')).records;
    expect(after[after.length - 1]!.parentUuid).toBe(records[records.length - 1]!.uuid);
  });

  it('resumes a turn cut off mid-tool into a valid request and persists the synthetic results once', async () => {
    const session = await startSession(store, { sessionId: 's1' });
    await session.sink.append([loopUser('go'), loopAssistant([text('two tools'), toolUse('t1'), toolUse('t2')])]);
    await session.close(); // the process "died" while the tools ran

    const resumed = await resume(store, 's1');
    validRequest(resumed.messages);
    expect(resumed.messages[2]).toEqual({
      role: 'user',
      content: ['t1', 't2'].map((id) => ({ type: 'tool_result', tool_use_id: id, content: SESSION_ENDED_TOOL_RESULT, is_error: true })),
    });
    expect(resumed.warnings.map((w) => w.kind)).toEqual(['synthetic_tool_result', 'synthetic_tool_result']);
    await resumed.close();

    const lines = (await readFile(join(dir, 's1.jsonl'), 'utf8')).trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(JSON.parse(lines[2]!)).toMatchObject({ type: 'user', reason: 'orphan_results' });

    const again = await resume(store, 's1');
    expect(again.messages).toEqual(resumed.messages);
    expect(again.warnings).toEqual([]);
    await again.close();
    expect((await readFile(join(dir, 's1.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(3);
  });

  it('refuses to resume a session another writer holds, and releases nothing of the holder', async () => {
    const holder = await startSession(store, { sessionId: 's1' });
    await expect(resume(store, 's1')).rejects.toBeInstanceOf(SessionLockedError);
    await holder.sink.append([loopUser('still mine')]);
    await holder.close();
    await (await resume(store, 's1')).close();
  });

  it('continueLatest resumes the most recently modified session; with none it says so', async () => {
    await expect(continueLatest(store)).rejects.toBeInstanceOf(SessionNotFoundError);
    for (const id of ['old', 'new']) {
      const s = await startSession(store, { sessionId: id });
      await s.sink.append([loopUser(`prompt of ${id}`)]);
      await s.close();
    }
    await utimes(join(dir, 'old.jsonl'), new Date(1_000_000), new Date(1_000_000));
    const latest = await continueLatest(store);
    expect(latest.sessionId).toBe('new');
    expect(latest.messages).toEqual([{ role: 'user', content: 'prompt of new' }]);
    await latest.close();
  });

  it('records compact boundaries and tombstones, and resumes the compacted view', async () => {
    const session = await startSession(store, { sessionId: 's1' });
    const failed = loopAssistant([text('attempt on the primary model')]);
    await session.sink.append([loopUser('long task'), loopAssistant([text('lots of work')]), loopUser('more')]);
    await session.sink.append([failed, { ...tracking, type: 'tombstone', uuids: [failed.type === 'assistant' ? failed.uuid : ''] }]);
    await session.sink.append([
      {
        ...tracking,
        type: 'compact_boundary',
        boundary: { trigger: 'auto', preTokens: 150_000, postTokens: 2_000 },
        messages: [{ role: 'user', content: 'Summary: a long task, more requested.' }],
      },
      loopAssistant([text('continuing after the summary')]),
    ]);
    await session.close();

    const types = (await store.read('s1')).records.map((r) => r.type);
    expect(types).toEqual(['user', 'assistant', 'user', 'assistant', 'tombstone', 'compact_boundary', 'summary', 'assistant']);
    const resumed = await resume(store, 's1');
    expect(resumed.messages).toEqual([
      { role: 'user', content: 'Summary: a long task, more requested.' },
      { role: 'assistant', content: [text('continuing after the summary')] },
    ]);
    await resumed.close();
  });

  it('fork copies the history into a new session and leaves the original untouched', async () => {
    const session = await startSession(store, { sessionId: 'orig' });
    await session.sink.append([loopUser('hello'), loopAssistant([text('hi')])]);
    await session.close();
    const before = await readFile(join(dir, 'orig.jsonl'), 'utf8');

    const forked = await fork(store, 'orig', { newSessionId: 'copy' });
    expect(forked.sessionId).toBe('copy');
    expect(forked.messages).toEqual([
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: [text('hi')] },
    ]);
    await forked.sink.append([loopUser('only in the fork')]);
    await forked.close();

    expect(await readFile(join(dir, 'orig.jsonl'), 'utf8')).toBe(before);
    const copy = (await store.read('copy')).records;
    expect(copy.every((r) => r.sessionId === 'copy')).toBe(true);
    expect(copy[2]).toMatchObject({ type: 'system', subtype: 'forked_from', data: { sessionId: 'orig', compacted: false } });
    expect((await resume(store, 'orig').then(async (s) => (await s.close(), s.messages))).length).toBe(2);
    const again = await resume(store, 'copy');
    expect(again.messages[2]).toEqual({ role: 'user', content: 'only in the fork' });
    await again.close();
  });

  it('fork with compacted starts the new session at the last compact boundary', async () => {
    const session = await startSession(store, { sessionId: 'orig' });
    await session.sink.append([
      loopUser('before compaction'),
      loopAssistant([text('old answer')]),
      { ...tracking, type: 'compact_boundary', boundary: { trigger: 'manual', preTokens: 104, postTokens: 20 }, messages: [{ role: 'user', content: 'the summary' }] },
      loopAssistant([text('after'), toolUse('t1')]),
    ]);
    const forked = await fork(store, 'orig', { newSessionId: 'compact', compacted: true }); // the original is still open: fork reads without its lock
    await session.close();
    const records = (await store.read('compact')).records;
    expect(records[0]).toMatchObject({ type: 'compact_boundary', parentUuid: null, trigger: 'manual', preTokens: 104 });
    expect(records.some((r) => r.type === 'user' && r.message.content === 'before compaction')).toBe(false);
    // The copied turn was cut off mid-tool: the fork is repaired like a resume.
    expect(forked.messages).toEqual([
      { role: 'user', content: 'the summary' },
      { role: 'assistant', content: [text('after'), toolUse('t1')] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: SESSION_ENDED_TOOL_RESULT, is_error: true }] },
    ]);
    validRequest(forked.messages);
    await forked.close();
    await expect(fork(store, 'orig', { newSessionId: 'compact' })).rejects.toThrow(/already exists/);
  });
});
