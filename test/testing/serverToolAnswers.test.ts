/**
 * Server tools answered from the script: a request that offers the API's own tools gets the
 * calls and results the script writes, as the API would stream them; a script that calls a
 * server tool the request did not offer, or answers a call nobody made, is refused with a 500
 * that names the misfit (the real API never sends such a reply, so a client must not learn it).
 */
import Anthropic from '@anthropic-ai/sdk';
import { lastValueFrom } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL } from '../../src/context/modelTable.js';
import { assembleBlocks } from '../../operators/assembleBlocks.js';
import type { ScriptedBlock, ScriptedMessage } from '../../src/testing/index.js';
import { createMessagesClient } from '../../src/transport/createMessagesClient.js';
import { post, useScriptedServer, validBody } from './helpers.js';

const start = useScriptedServer();
const webSearch = { type: 'web_search_20250305', name: 'web_search', max_uses: 2 } as const;
const searchCall: ScriptedBlock = { type: 'server_tool_use', id: 'srvtoolu_s1', name: 'web_search', input: { query: 'rxjs expand' } };
const searchResult: ScriptedBlock = {
  type: 'server_block',
  block: {
    type: 'web_search_tool_result',
    tool_use_id: 'srvtoolu_s1',
    content: [{ type: 'web_search_result', url: 'https://rxjs.dev/api/operators/expand', title: 'expand', encrypted_content: 'EqgfCioIARgB', page_age: null }],
  },
};
const searched: ScriptedMessage = {
  kind: 'message',
  blocks: [searchCall, searchResult, { type: 'text', text: 'expand recurses.', chunkSize: 4 }],
  usage: { input_tokens: 40, output_tokens: 12, server_tool_use: { web_search_requests: 1 } },
};
const sdk = (baseURL: string) => new Anthropic({ baseURL, apiKey: 'sk-test', maxRetries: 0 });

describe('server tools answered from the script', () => {
  it('the Anthropic SDK streams the scripted search call, its result and the answer as the API sends them', async () => {
    const s = await start({ script: [searched] });
    const message = await sdk(s.baseURL)
      .messages.stream({ model: DEFAULT_MODEL, max_tokens: 512, tools: [webSearch], messages: [{ role: 'user', content: 'What does expand do?' }] })
      .finalMessage();
    expect(message.content).toMatchObject([
      { type: 'server_tool_use', id: 'srvtoolu_s1', name: 'web_search', input: { query: 'rxjs expand' } },
      { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_s1', content: [{ url: 'https://rxjs.dev/api/operators/expand' }] },
      { type: 'text', text: 'expand recurses.' },
    ]);
    expect(message.usage.server_tool_use).toMatchObject({ web_search_requests: 1 });
    expect(s.requests[0]!.validationErrors).toEqual([]);
  });

  it("rxagent's client assembles the same blocks, and the history that sends them back is valid", async () => {
    const s = await start({ script: [searched, { kind: 'message', blocks: [{ type: 'text', text: 'Anything else?' }] }] });
    const client = createMessagesClient({ baseURL: s.baseURL, apiKey: 'sk-test', maxRetries: 0 });
    try {
      const ask = { model: DEFAULT_MODEL, max_tokens: 512, tools: [webSearch], messages: [{ role: 'user' as const, content: 'What does expand do?' }] };
      const assembled = await lastValueFrom(client.stream(ask).pipe(assembleBlocks()));
      expect(assembled.type).toBe('message');
      const content = assembled.type === 'message' ? assembled.message.content : [];
      expect(content.map((b) => b.type)).toEqual(['server_tool_use', 'web_search_tool_result', 'text']);
      const followUp = { ...ask, messages: [...ask.messages, { role: 'assistant' as const, content }, { role: 'user' as const, content: 'Thanks.' }] };
      await lastValueFrom(client.stream(followUp).pipe(assembleBlocks()));
      expect(s.requests.map((r) => r.validationErrors)).toEqual([[], []]);
    } finally {
      await client.close();
    }
  });

  it('a script that calls a server tool the request does not offer gets a 500 naming it, and its reply stays unplayed', async () => {
    const s = await start({ script: [searched] });
    const refused = await post(s.baseURL, validBody());
    expect(refused.status).toBe(500);
    expect(refused.headers.get('x-should-retry')).toBe('false');
    const body = (await refused.json()) as { error: { type: string; message: string } };
    expect(body.error.type).toBe('api_error');
    expect(body.error.message).toMatch(/server tool "web_search", which the request does not offer \(it offers: none\)/);
    // The same reply fits a request that offers the tool: it was not used up.
    const played = await post(s.baseURL, validBody({ tools: [webSearch] }));
    expect(played.status).toBe(200);
    expect(await played.text()).toContain('srvtoolu_s1');
  });

  it('a result block that answers no earlier call is refused', async () => {
    const s = await start({ script: [{ kind: 'message', blocks: [searchResult, { type: 'text', text: 'x' }] }] });
    const refused = await post(s.baseURL, validBody({ tools: [webSearch] }));
    expect(refused.status).toBe(500);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(
      /block 0 \(web_search_tool_result\) answers "srvtoolu_s1", which no server_tool_use before it made/,
    );
  });

  it("a paused turn's continuation may answer the call its paused message made", async () => {
    const s = await start({ script: [{ kind: 'message', blocks: [searchResult, { type: 'text', text: 'Resumed.' }] }] });
    const pausedHistory = {
      tools: [webSearch],
      messages: [
        { role: 'user', content: 'search' },
        { role: 'assistant', content: [{ type: 'server_tool_use', id: 'srvtoolu_s1', name: 'web_search', input: { query: 'rxjs expand' } }] },
      ],
    };
    const played = await post(s.baseURL, validBody(pausedHistory));
    expect(played.status).toBe(200);
    expect(s.requests[0]!.validationErrors).toEqual([]);
  });

  it('code execution runs as its sub-tools; a tool type the check does not know accepts any call (never stricter than the API)', async () => {
    const bash: ScriptedBlock = { type: 'server_tool_use', id: 'srvtoolu_b', name: 'bash_code_execution', input: { command: 'ls' } };
    const bashResult: ScriptedBlock = {
      type: 'server_block',
      block: { type: 'bash_code_execution_tool_result', tool_use_id: 'srvtoolu_b', content: { type: 'bash_code_execution_result', stdout: 'a\n', stderr: '', return_code: 0, content: [] } },
    };
    const reply: ScriptedMessage = { kind: 'message', blocks: [bash, bashResult, { type: 'text', text: 'One file.' }] };
    const s = await start({ script: [reply, reply, reply] });
    expect((await post(s.baseURL, validBody({ tools: [{ type: 'code_execution_20250825', name: 'code_execution' }] }))).status).toBe(200);
    expect((await post(s.baseURL, validBody({ tools: [{ type: 'mcp_toolset', mcp_server_name: 'remote' }] }))).status).toBe(200);
    const webOnly = await post(s.baseURL, validBody({ tools: [webSearch] }));
    expect(webOnly.status).toBe(500);
    expect(((await webOnly.json()) as { error: { message: string } }).error.message).toMatch(/"bash_code_execution", which the request does not offer \(it offers: web_search\)/);
  });
});
