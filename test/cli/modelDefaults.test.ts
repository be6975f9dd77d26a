/**
 * What the built command sends as Claude Code does (SPEC §14), checked on the wire against the
 * scripted server: prompt caching on by default (DISABLE_PROMPT_CACHING=1 sends none), thinking
 * on by default with the signed thinking block replayed before its tool call in the next
 * request, model aliases and ANTHROPIC_MODEL, MAX_THINKING_TOKENS and
 * CLAUDE_CODE_MAX_OUTPUT_TOKENS, WebSearch/WebFetch as server tools, the start-up model warning.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { DEFAULT_MODEL } from '../../src/context/modelTable.js';
import { assertBuilt, makeSandbox, removeSandboxes, runAgainst } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const text = (t: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text: t }] });
const thinkThenGlob = {
  kind: 'message' as const,
  blocks: [
    { type: 'thinking' as const, thinking: 'list the files first', signature: 'sig-abc' },
    { type: 'tool_use' as const, id: 'toolu_g', name: 'Glob', input: { pattern: '*' } },
  ],
};
const cacheMarks = (body: unknown): number => (JSON.stringify(body).match(/"cache_control"/g) ?? []).length;

describe('requests as Claude Code sends them', () => {
  test('defaults: the current model, adaptive thinking, 32000 max_tokens, cache breakpoints; the signed thinking block goes back before its tool call', async () => {
    const box = makeSandbox({ 'a.txt': 'x' });
    const run = await runAgainst([thinkThenGlob, text('done')], ['-p', 'look around'], box);
    expect(run.code).toBe(0);
    const [first, second] = run.server.requests.map((r) => r.body!);
    expect(first).toMatchObject({ model: DEFAULT_MODEL, max_tokens: 32_000, thinking: { type: 'adaptive' } });
    // System prompt, tools and the last message: three breakpoints, as Claude Code places them.
    expect(cacheMarks(first)).toBe(3);
    expect(cacheMarks(second)).toBe(3);
    const replayed = second!.messages[1]!;
    expect(replayed.role).toBe('assistant');
    expect(replayed.content).toEqual([
      { type: 'thinking', thinking: 'list the files first', signature: 'sig-abc' },
      { type: 'tool_use', id: 'toolu_g', name: 'Glob', input: { pattern: '*' } },
    ]);
    expect(run.stderr).not.toContain('warning: model');
  });

  test('DISABLE_PROMPT_CACHING=1 sends no breakpoint; MAX_THINKING_TOKENS=0 sends no thinking (and replays none)', async () => {
    const box = makeSandbox({ 'a.txt': 'x' });
    const run = await runAgainst([thinkThenGlob, text('done')], ['-p', 'look around'], { ...box, env: { DISABLE_PROMPT_CACHING: '1', MAX_THINKING_TOKENS: '0' } });
    expect(run.code).toBe(0);
    for (const request of run.server.requests) {
      expect(cacheMarks(request.body)).toBe(0);
      expect(request.body!.thinking).toBeUndefined();
    }
    expect(JSON.stringify(run.server.requests[1]!.body!.messages)).not.toContain('"thinking"');
  });

  test('a budget model (claude-haiku-4-5): --max-thinking-tokens and CLAUDE_CODE_MAX_OUTPUT_TOKENS shape the request; the interleaved-thinking beta joins --betas', async () => {
    const box = makeSandbox();
    const run = await runAgainst([text('ok')], ['-p', 'hi', '--model', 'claude-haiku-4-5', '--max-thinking-tokens', '4096', '--betas', 'my-beta'], {
      ...box,
      env: { CLAUDE_CODE_MAX_OUTPUT_TOKENS: '20000' },
    });
    expect(run.code).toBe(0);
    const request = run.server.requests[0]!;
    expect(request.body).toMatchObject({ model: 'claude-haiku-4-5', max_tokens: 20_000, thinking: { type: 'enabled', budget_tokens: 4096 } });
    expect(String(request.headers['anthropic-beta']).split(',').sort()).toEqual(['interleaved-thinking-2025-05-14', 'my-beta']);
  });

  test('aliases resolve before sending: --model opus, ANTHROPIC_MODEL=haiku with ANTHROPIC_SMALL_FAST_MODEL', async () => {
    const box = makeSandbox();
    const opus = await runAgainst([text('ok')], ['-p', 'hi', '--model', 'opus'], box);
    expect(opus.server.requests[0]!.body!.model).toBe('claude-opus-5-5');
    const haiku = await runAgainst([text('ok')], ['-p', 'hi', '--output-format', 'stream-json', '--verbose'], {
      ...box,
      env: { ANTHROPIC_MODEL: 'haiku', ANTHROPIC_SMALL_FAST_MODEL: 'claude-haiku-4-5' },
    });
    expect(haiku.server.requests[0]!.body!.model).toBe('claude-haiku-4-5');
    expect(haiku.stdout).toContain('"model":"claude-haiku-4-5"');
  });

  test('an unknown model warns once at start and says its cost is estimated at the highest price', async () => {
    const box = makeSandbox();
    const run = await runAgainst([text('ok')], ['-p', 'hi', '--model', 'claude-nonesuch-9'], box);
    expect(run.code).toBe(0);
    const warnings = run.stderr.split('\n').filter((l) => l.includes('claude-nonesuch-9'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/not in rxagent's model table.*highest price/);
    // The table does not know how it thinks: no thinking field that it might refuse.
    expect(run.server.requests[0]!.body!.thinking).toBeUndefined();
  });

  test('--tools Read WebSearch WebFetch: the server tool definitions are sent (with the web-fetch beta); a server block in the reply goes back unchanged', async () => {
    const box = makeSandbox();
    const searched = {
      kind: 'message' as const,
      blocks: [
        { type: 'server_tool_use' as const, id: 'srvtoolu_1', name: 'web_search', input: { query: 'rxjs expand' } },
        {
          type: 'server_block' as const,
          block: { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [{ type: 'web_search_result', url: 'https://example.com/', title: 'Example', encrypted_content: 'enc', page_age: null }] },
        },
        { type: 'tool_use' as const, id: 'toolu_r', name: 'Read', input: { file_path: 'missing.txt' } },
      ],
    };
    const run = await runAgainst([searched, text('done')], ['-p', 'search', '--tools', 'Read', 'WebSearch', 'WebFetch'], box);
    expect(run.code).toBe(0);
    const [first, second] = run.server.requests;
    const tools = (first!.body!.tools ?? []) as Array<{ name: string; type?: string }>;
    expect(tools.map((t) => [t.name, t.type])).toEqual([
      ['web_search', 'web_search_20250305'],
      ['web_fetch', 'web_fetch_20250910'],
      ['Read', undefined],
    ]);
    expect(String(first!.headers['anthropic-beta'])).toContain('web-fetch-2025-09-10');
    expect((second!.body!.messages[1]!.content as unknown[]).slice(0, 2)).toEqual([
      { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'rxjs expand' } },
      searched.blocks[1]!.type === 'server_block' ? searched.blocks[1]!.block : undefined,
    ]);
  });
});
