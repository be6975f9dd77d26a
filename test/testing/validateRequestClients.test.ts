/**
 * What real clients send today and the real API accepts, the scripted server accepts too (it is
 * the API's stand-in: as strict as the API, no stricter): adaptive thinking, the system forms,
 * cache_control on any block, the API's own tools by type tag, their blocks sent back in history.
 * And what the API refuses it still refuses: unknown type tags, a server tool under another name.
 */
import { describe, expect, it } from 'vitest';
import { validateMessagesRequest } from '../../src/testing/index.js';

const base = { model: 'claude-test', max_tokens: 4096 };
const req = (messages: unknown[], extra: Record<string, unknown> = {}): Record<string, unknown> => ({ ...base, messages, ...extra });
const user = (content: unknown) => ({ role: 'user', content });
const assistant = (content: unknown) => ({ role: 'assistant', content });
const text = (t: string, extra: Record<string, unknown> = {}) => ({ type: 'text', text: t, ...extra });
const cached = { cache_control: { type: 'ephemeral' } };
const cachedHour = { cache_control: { type: 'ephemeral', ttl: '1h' } };
const custom = (name: string, extra: Record<string, unknown> = {}) => ({ name, description: 'd', input_schema: { type: 'object', properties: {} }, ...extra });
const webSearch = { type: 'web_search_20250305', name: 'web_search', max_uses: 3, allowed_domains: ['example.com'], user_location: { type: 'approximate', city: 'Paris' } };
const webFetch = { type: 'web_fetch_20250910', name: 'web_fetch', max_uses: 2 };
const codeExecution = { type: 'code_execution_20250825', name: 'code_execution' };

describe('accepted, as the API accepts them', () => {
  const valid: [string, unknown][] = [
    ['adaptive thinking', req([user('hi')], { thinking: { type: 'adaptive' } })],
    ['thinking disabled', req([user('hi')], { thinking: { type: 'disabled' } })],
    ['system as a string', req([user('hi')], { system: 'be brief' })],
    ['system as text blocks, one cached for an hour, with citations null', req([user('hi')], { system: [text('a', { citations: null }), text('b', cachedHour)] })],
    ['a top-level cache_control (automatic caching)', req([user('hi')], cached)],
    ['cache_control on a tool, a tool_use and a tool_result', req([user('hi'), assistant([{ type: 'tool_use', id: 't1', name: 'Read', input: {}, ...cached }]), user([{ type: 'tool_result', tool_use_id: 't1', content: 'ok', ...cached }])], { tools: [custom('Read', cached)] })],
    ['cache_control inside a tool_result and on an image', req([user('hi'), assistant([{ type: 'tool_use', id: 't1', name: 'Read', input: {} }]), user([{ type: 'tool_result', tool_use_id: 't1', content: [text('page', cached)] }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBOR' }, ...cached }])])],
    ['server tools next to a custom one, tool_choice naming a server tool', req([user('search')], { tools: [custom('Read'), webSearch, webFetch, codeExecution], tool_choice: { type: 'tool', name: 'web_search' } })],
    ['a custom tool with type "custom"', req([user('hi')], { tools: [custom('Read', { type: 'custom' })] })],
    ['a toolset without a name', req([user('hi')], { tools: [{ type: 'mcp_toolset', mcp_server_name: 'files' }] })],
    [
      'server tool blocks sent back in history, as the model wrote them',
      req([
        user('what is new?'),
        assistant([
          text('Let me look.'),
          { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'news' } },
          { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://example.com', title: 'Ex', encrypted_content: 'e' }] },
          text('Here is what I found.', { citations: [{ type: 'web_search_result_location', url: 'https://example.com', title: 'Ex', encrypted_index: 'i', cited_text: 'x' }] }),
        ]),
        user('thanks'),
      ], { tools: [webSearch] }),
    ],
    ['a document and a search result in a user message', req([user([{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'doc' } }, { type: 'search_result', source: 'https://example.com', title: 't', content: [text('c')] }, text('summarize')])])],
  ];
  it.each(valid)('%s', (_name, body) => {
    expect(validateMessagesRequest(body)).toEqual([]);
  });
});

describe('refused, as the API refuses them', () => {
  const invalid: [string, unknown, RegExp][] = [
    ['an unknown tool type tag', req([user('hi')], { tools: [{ type: 'web_search_29990101', name: 'web_search' }] }), /^tools\[0\]\.type: unknown tool type "web_search_29990101"/],
    ['a server tool under another name', req([user('hi')], { tools: [{ ...webSearch, name: 'search' }] }), /^tools\[0\]\.name: a web_search_20250305 tool must be named "web_search", got "search"$/],
    ['a custom tool without input_schema', req([user('hi')], { tools: [{ name: 'Read' }] }), /^tools\[0\]\.input_schema: /],
    ['an unknown thinking mode', req([user('hi')], { thinking: { type: 'sometimes' } }), /^thinking\.type: /],
    ['a cache_control that is not ephemeral', req([user([text('a', { cache_control: { type: 'persistent' } })])]), /^messages\[0\]\.content\[0\]\.cache_control\.type: /],
    ['a cache ttl the API does not offer', req([user('hi')], { system: [text('s', { cache_control: { type: 'ephemeral', ttl: '1d' } })] }), /^system\[0\]\.cache_control\.ttl: /],
    ['an image block in system', req([user('hi')], { system: [{ type: 'image', source: { type: 'url', url: 'https://x' } }] }), /^system/],
    ['an unknown content block type', req([user([{ type: 'video', url: 'x' }])]), /^messages\[0\]\.content\[0\]\.type: /],
    ['a server_tool_use whose input is not an object', req([user('hi'), assistant([{ type: 'server_tool_use', id: 's1', name: 'web_search', input: 'news' }])]), /^messages\[1\]\.content\[0\]\.input: /],
    ['a tool name with a space', req([user('hi')], { tools: [custom('read file')] }), /^tools\[0\]\.name: tool names are 1-128 letters/],
  ];
  it.each(invalid)('%s', (_name, body, expected) => {
    const errors = validateMessagesRequest(body);
    expect(errors.some((e) => expected.test(e)), `errors were:\n${errors.join('\n')}`).toBe(true);
  });

  it('five cache breakpoints are still too many, wherever they are', () => {
    const body = req([user('hi'), assistant([{ type: 'tool_use', id: 't1', name: 'Read', input: {}, ...cached }]), user([{ type: 'tool_result', tool_use_id: 't1', content: [text('x', cached)], ...cached }])], {
      system: [text('s', cached)],
      tools: [custom('Read', cached)],
    });
    expect(validateMessagesRequest(body)).toEqual([expect.stringMatching(/^request: 5 blocks have cache_control/)]);
  });
});
