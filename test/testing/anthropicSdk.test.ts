/**
 * The official Anthropic TypeScript SDK, unchanged, pointed at the scripted server by `baseURL`:
 * what it sends today (adaptive thinking, cached system blocks with a ttl, the API's own tools
 * next to a custom one, the `anthropic-beta` header of `client.beta`) is valid, and it reads the
 * server's answers (JSON and SSE) as it reads the API's.
 */
import Anthropic from '@anthropic-ai/sdk';
import { describe, expect, it } from 'vitest';
import { DEFAULT_MODEL } from '../../src/context/modelTable.js';
import type { ScriptedMessage } from '../../src/testing/index.js';
import { useScriptedServer } from './helpers.js';

const start = useScriptedServer();
const reply = (text: string): ScriptedMessage => ({ kind: 'message', blocks: [{ type: 'text', text, chunkSize: 3 }] });
const sdk = (baseURL: string) => new Anthropic({ baseURL, apiKey: 'sk-test-sdk', maxRetries: 0 });

describe('the Anthropic SDK against the scripted server', () => {
  it('create and stream: adaptive thinking, a cached system block, server tools beside a custom tool', async () => {
    const s = await start({ script: [reply('Searched and found.'), reply('Streamed, too.')] });
    const client = sdk(s.baseURL);
    const params = {
      model: DEFAULT_MODEL,
      max_tokens: 1024,
      system: [{ type: 'text' as const, text: 'Be brief.', cache_control: { type: 'ephemeral' as const, ttl: '1h' as const } }],
      thinking: { type: 'adaptive' as const },
      tools: [
        { type: 'web_search_20250305' as const, name: 'web_search' as const, max_uses: 2 },
        { type: 'code_execution_20250825' as const, name: 'code_execution' as const },
        { name: 'Read', description: 'Read a file', input_schema: { type: 'object' as const, properties: { path: { type: 'string' } } }, cache_control: { type: 'ephemeral' as const } },
      ],
      messages: [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'What is new?', cache_control: { type: 'ephemeral' as const } }] }],
    };
    const created = await client.messages.create(params);
    expect(created.content).toEqual([{ type: 'text', text: 'Searched and found.' }]);
    const streamed = await client.messages.stream(params).finalMessage();
    expect(streamed.content).toMatchObject([{ type: 'text', text: 'Streamed, too.' }]);
    expect(s.requests.map((r) => r.validationErrors)).toEqual([[], []]);
    expect(s.requests[1]!.body!.stream).toBe(true);
  });

  it('client.beta sends the anthropic-beta header; the request is valid and the header recorded', async () => {
    const s = await start({ script: [reply('Fetched.')] });
    const message = await sdk(s.baseURL).beta.messages.create({
      model: DEFAULT_MODEL,
      max_tokens: 256,
      betas: ['web-fetch-2025-09-10', 'context-management-2025-06-27'],
      tools: [{ type: 'web_fetch_20250910', name: 'web_fetch', max_uses: 1 }],
      messages: [{ role: 'user', content: 'Read https://example.com' }],
    });
    expect(message.content).toMatchObject([{ type: 'text', text: 'Fetched.' }]);
    const [recorded] = s.requests;
    expect(recorded!.validationErrors).toEqual([]);
    expect(recorded!.headers['anthropic-beta']).toBe('web-fetch-2025-09-10,context-management-2025-06-27');
  });

  it('an invalid request still gets the API-shaped 400 the SDK turns into its BadRequestError', async () => {
    const s = await start({ script: [reply('never')] });
    const failing = sdk(s.baseURL).messages.create({
      model: DEFAULT_MODEL,
      max_tokens: 64,
      messages: [
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
      ],
    });
    await expect(failing).rejects.toBeInstanceOf(Anthropic.BadRequestError);
    await expect(failing).rejects.toThrow(/invalid_request_error.*two consecutive .*user.* messages/);
  });
});
