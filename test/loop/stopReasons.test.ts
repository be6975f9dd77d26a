/**
 * Stop reasons beyond end_turn/tool_use/max_tokens (SPEC §14), over a real 127.0.0.1 server:
 * pause_turn resumes with the paused content sent back, refusal and unknown reasons end the turn
 * their own way, model_context_window_exceeded recovers like prompt-too-long, and a returned
 * container is named by the next request.
 */
import { lastValueFrom, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { createContextGovernor } from '../../src/context/createContextGovernor.js';
import { agentLoop } from '../../src/loop/agentLoop.js';
import { PAUSE_TURN_CONTINUATION_LIMIT } from '../../src/loop/stopReasons.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedBlock, ScriptedMessage, ScriptedResponse } from '../../src/testing/script.js';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import { createMessagesClient, type ClosableMessagesClient } from '../../src/transport/createMessagesClient.js';
import { echoTool, isCompaction, lookupTool, runOverHttp, transitions } from './helpers.js';

const search: ScriptedBlock = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'rxjs' } };
const result: ScriptedBlock = {
  type: 'server_block',
  block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://rxjs.dev', title: 'RxJS', encrypted_content: 'E1' }] },
};
const paused = (extra: Partial<ScriptedMessage> = {}): ScriptedMessage => ({ kind: 'message', blocks: [search, result], stopReason: 'pause_turn', ...extra });
/** Every pause_turn run offers web search: the API runs (and so pauses in) only tools the request offers. */
const webSearch = { serverTools: [{ type: 'web_search_20250305', name: 'web_search' }] } as const;
const answer = (text: string): ScriptedMessage => ({ kind: 'message', blocks: [{ type: 'text', text }] });

describe('pause_turn', () => {
  it('sends the paused content back as the last message, continues the same turn, and joins the continuation to it', async () => {
    const run = await runOverHttp([paused(), answer('RxJS is a library.')], webSearch);
    expect(run.terminal.reason).toBe('completed');
    expect(transitions(run.events)).toEqual(['pause_turn_continuation']);
    for (const r of run.requests) expect(r.validationErrors).toEqual([]);
    const resumed = run.requests[1]!.body!.messages;
    const call = { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'rxjs' } };
    const pausedContent = [call, (result as { block: unknown }).block];
    // As is, but for the loop's cache breakpoint (the result block cannot take one, so it is on the call).
    expect(resumed.at(-1)).toEqual({ role: 'assistant', content: [{ ...call, cache_control: { type: 'ephemeral' } }, pausedContent[1]] });
    // An API attempt, not a turn; one assistant message in the history, roles alternating.
    expect(run.terminal.turnCount).toBe(1);
    expect(run.terminal.messages?.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(run.terminal.messages?.at(-1)?.content).toEqual([...pausedContent, { type: 'text', text: 'RxJS is a library.' }]);
  });

  it('is bounded: after the limit the turn ends, with a warning, its content kept', async () => {
    const script = Array.from({ length: PAUSE_TURN_CONTINUATION_LIMIT + 1 }, () => paused());
    const run = await runOverHttp(script, webSearch);
    expect(run.requests).toHaveLength(PAUSE_TURN_CONTINUATION_LIMIT + 1);
    expect(run.terminal.reason).toBe('completed');
    expect(run.events.some((e) => e.type === 'warning' && /paused this turn/.test(e.message))).toBe(true);
    for (const r of run.requests) expect(r.validationErrors).toEqual([]);
  });

  it('a tool batch after a resumed turn still answers every tool_use', async () => {
    const run = await runOverHttp(
      [paused(), { kind: 'message', blocks: [{ type: 'tool_use', name: 'echo', input: { x: 'a' } }] }, answer('done')],
      { tools: [echoTool], ...webSearch },
    );
    expect(run.terminal.reason).toBe('completed');
    expect(transitions(run.events)).toEqual(['pause_turn_continuation', 'next_turn']);
    for (const r of run.requests) expect(r.validationErrors).toEqual([]);
  });
});

describe('refusal and unknown stop reasons', () => {
  it('refusal ends the turn with its own terminal, the stop_details in the error', async () => {
    const stopDetails = { type: 'refusal', category: 'cyber', explanation: 'declined' };
    const run = await runOverHttp([{ kind: 'message', blocks: [{ type: 'text', text: 'I can' }], stopReason: 'refusal', stopDetails }]);
    expect(run.terminal.reason).toBe('refusal');
    expect(run.terminal.error).toMatchObject({ kind: 'refusal', details: stopDetails, message: expect.stringContaining('declined') });
    expect(run.requests).toHaveLength(1);
  });

  it('a stop reason this version does not know ends the turn as completed, with a warning, never an error', async () => {
    const run = await runOverHttp([{ kind: 'message', blocks: [{ type: 'text', text: 'partial' }], stopReason: 'quantum_interrupt' }]);
    expect(run.terminal.reason).toBe('completed');
    expect(run.terminal.error).toBeUndefined();
    expect(run.events.some((e) => e.type === 'warning' && e.message.includes('quantum_interrupt'))).toBe(true);
    expect(run.terminal.lastAssistantText).toBe('partial');
  });
});

describe('model_context_window_exceeded', () => {
  let server: ScriptedServer | undefined;
  let client: ClosableMessagesClient | undefined;
  afterEach(async () => {
    // Reset, or the next test's afterEach closes this test's (already closed) client again.
    await client?.close();
    await server?.close();
    client = undefined;
    server = undefined;
  });

  it('without room to compact it ends prompt_too_long, naming the stop reason', async () => {
    const run = await runOverHttp([{ kind: 'message', blocks: [{ type: 'text', text: 'cut' }], stopReason: 'model_context_window_exceeded' }]);
    expect(run.terminal.reason).toBe('prompt_too_long');
    expect(run.terminal.error?.message).toMatch(/model_context_window_exceeded/);
  });

  it('compacts reactively and retries the turn, like a prompt-too-long error', async () => {
    let main = 0;
    const script = (request: MessagesRequest): ScriptedResponse => {
      if (isCompaction(request)) return answer('SUMMARY: three lookups done.');
      const n = main++;
      if (n < 3) return { kind: 'message', blocks: [{ type: 'tool_use', name: 'lookup', input: { key: `k${n}` } }] };
      if (n === 3) return { kind: 'message', blocks: [{ type: 'text', text: 'the answer is' }], stopReason: 'model_context_window_exceeded' };
      return answer('all found');
    };
    server = await startScriptedServer({ script });
    client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries: 0 });
    const governor = createContextGovernor({ client, keepRecentTokens: 1_000 });
    const events = await lastValueFrom(
      agentLoop({ model: 'claude-sonnet-4-5', prompt: 'look up', tools: [lookupTool(2_000)], client, contextGovernor: governor }).pipe(toArray()),
    );
    const terminal = events.at(-1)!;
    expect(terminal.type === 'terminal' && terminal.reason).toBe('completed');
    expect(server.requests.map((r) => (isCompaction(r.body) ? 'compact' : 'main'))).toEqual(['main', 'main', 'main', 'main', 'compact', 'main']);
    expect(events.filter((e) => e.type === 'compact_boundary')).toMatchObject([{ trigger: 'reactive' }]);
    for (const r of server.requests) expect(r.validationErrors).toEqual([]);
  });
});

describe('container', () => {
  it('the next request names the code-execution container the previous response returned', async () => {
    const container = { id: 'container_011Abc', expires_at: '2026-12-01T12:00:00Z' };
    const run = await runOverHttp(
      [
        { kind: 'message', blocks: [{ type: 'tool_use', name: 'echo', input: { x: 'a' } }], container },
        { kind: 'message', blocks: [{ type: 'tool_use', name: 'echo', input: { x: 'b' } }] },
        answer('done'),
      ],
      { tools: [echoTool] },
    );
    expect(run.requests[0]!.body!['container']).toBeUndefined();
    expect(run.requests[1]!.body!['container']).toBe('container_011Abc');
    // Kept while no newer one comes back.
    expect(run.requests[2]!.body!['container']).toBe('container_011Abc');
  });
});
