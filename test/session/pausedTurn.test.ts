/**
 * `pause_turn` and the transcript (issue 16), over real HTTP with a real JSONL session: the
 * paused content and its continuation are ONE assistant record (the live history joins them into
 * one message), and a resumed session rebuilds exactly the message the live history had, also
 * when the paused content ended in a thinking block and when the continuation never came.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { MessageParam } from '../../src/protocol/content.js';
import { createJsonlSessionStore, type JsonlSessionStore } from '../../src/session/jsonlSessionStore.js';
import { resume, startSession } from '../../src/session/sessions.js';
import type { ScriptedBlock, ScriptedMessage, ScriptedResponse } from '../../src/testing/script.js';
import type { AgentLoopOptions } from '../../src/loop/options.js';
import { echoTool, runOverHttp, withoutCacheMarks } from '../loop/helpers.js';
import { makeTempDir } from './helpers.js';

const thinking = (text: string): ScriptedBlock => ({ type: 'thinking', thinking: text, signature: `sig-${text}` });
const search: ScriptedBlock = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'rxjs' } };
const searchResult: ScriptedBlock = {
  type: 'server_block',
  block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://rxjs.dev', title: 'RxJS', encrypted_content: 'E1' }] },
};
const usage = (input: number, output: number) => ({ input_tokens: input, output_tokens: output });
/** Paused after a search, its last block a thinking block (interleaved thinking before the next step). */
const paused: ScriptedMessage = { kind: 'message', blocks: [thinking('plan'), search, searchResult, thinking('next')], stopReason: 'pause_turn', usage: usage(100, 20) };
const continuation: ScriptedMessage = { kind: 'message', blocks: [thinking('resume'), { type: 'text', text: 'RxJS is a library.' }], usage: usage(150, 30) };

let dir: string;
let cleanup: () => Promise<void>;
let store: JsonlSessionStore;
beforeEach(async () => {
  ({ dir, cleanup } = await makeTempDir());
  store = createJsonlSessionStore({ dir, workspace: '/work/project' });
});
afterEach(async () => cleanup());

async function recordedRun(sessionId: string, script: readonly ScriptedResponse[], extra: Partial<AgentLoopOptions> = {}) {
  const session = await startSession(store, { sessionId });
  // Web search offered: the API runs (and so pauses in) only server tools the request offers.
  const run = await runOverHttp(script, {
    prompt: 'what is rxjs?',
    transcript: session.sink,
    thinking: { type: 'enabled', budget_tokens: 1024 },
    serverTools: [{ type: 'web_search_20250305', name: 'web_search' }],
    ...extra,
  });
  await session.close();
  const { records } = await store.read(sessionId);
  const assistants = records.filter((r) => r.type === 'assistant');
  return { run, records, assistants };
}

async function rebuilt(sessionId: string): Promise<readonly MessageParam[]> {
  const opened = await resume(store, sessionId);
  try {
    expect(opened.warnings).toEqual([]);
    return opened.messages;
  } finally {
    await opened.close();
  }
}

describe('pause_turn in the transcript', () => {
  it('paused content and continuation are one assistant record, and resuming rebuilds the live message', async () => {
    const { run, assistants } = await recordedRun('pause-1', [paused, continuation]);
    expect(run.terminal.reason).toBe('completed');
    for (const r of run.requests) expect(r.validationErrors).toEqual([]);
    const live = run.terminal.messages!;
    expect(live.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(assistants).toHaveLength(1);
    const record = assistants[0]!;
    expect(record.type === 'assistant' && record.message.content).toEqual(live[1]!.content);
    // The record stands for both API attempts.
    expect(record.type === 'assistant' && record.usage).toMatchObject(usage(250, 50));
    expect(await rebuilt('pause-1')).toEqual(live);
  });

  it('several pauses in a row are still one record', async () => {
    const again: ScriptedMessage = { ...paused, blocks: [search, searchResult], usage: usage(10, 1) };
    const { run, assistants } = await recordedRun('pause-2', [paused, again, continuation]);
    expect(run.terminal.reason).toBe('completed');
    expect(assistants).toHaveLength(1);
    expect(await rebuilt('pause-2')).toEqual(run.terminal.messages);
  });

  it('a continuation that never comes: the paused record is kept alone, and resuming rebuilds what the live run sent', async () => {
    const { run, assistants } = await recordedRun('pause-3', [paused, { kind: 'http_error', status: 400, errorType: 'invalid_request_error', message: 'no' }]);
    expect(run.terminal.reason).toBe('api_error');
    expect(assistants).toHaveLength(1);
    // The request that resumed the paused turn is what a resumed session sends again.
    const resumedRequest = run.requests[1]!.body!.messages;
    expect(resumedRequest.at(-1)?.role).toBe('assistant');
    // (The request also carries the loop's cache breakpoint, which history never keeps.)
    expect(await rebuilt('pause-3')).toEqual(withoutCacheMarks(resumedRequest));
    expect(await rebuilt('pause-3')).toEqual(run.terminal.messages);
  });

  it('a tool call in the continuation: the next turn chains from the joined record', async () => {
    const callsTool: ScriptedMessage = { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_1', name: 'echo', input: { x: 'a' } }] };
    const answer: ScriptedMessage = { kind: 'message', blocks: [{ type: 'text', text: 'done' }] };
    const { run, records, assistants } = await recordedRun('pause-4', [paused, callsTool, answer], { tools: [echoTool] });
    expect(run.terminal.reason).toBe('completed');
    expect(run.terminal.messages!.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    expect(assistants).toHaveLength(2);
    // Every record's parent is a record of the file: nothing points at the held paused uuid.
    const uuids = new Set(records.flatMap((r) => ('uuid' in r ? [r.uuid] : [])));
    for (const r of records) if ('parentUuid' in r && r.parentUuid !== null) expect(uuids.has(r.parentUuid)).toBe(true);
    expect(await rebuilt('pause-4')).toEqual(run.terminal.messages);
  });
});
