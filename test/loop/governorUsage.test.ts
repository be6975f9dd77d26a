/**
 * The real context governor in the loop over HTTP, driven by the usage the server reports (not
 * by estimates): the loop passes `lastUsage` and `messagesSinceUsage` (index of the first message
 * added after the reported response), resets them after a compaction, and the breaker's warnings
 * reach consumers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { createContextGovernor, type ContextGovernorOptions } from '../../src/context/createContextGovernor.js';
import { estimateMessagesTokens } from '../../src/context/tokens.js';
import { agentLoop } from '../../src/loop/agentLoop.js';
import type { ContextGovernor, GovernorInput } from '../../src/loop/seams.js';
import type { LoopEvent, TerminalEvent } from '../../src/loop/types.js';
import type { Usage } from '../../src/protocol/content.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { isCompaction, lookupTool } from './helpers.js';
import { createMessagesClient, type ClosableMessagesClient } from '../../src/transport/createMessagesClient.js';

const MODEL = 'claude-sonnet-4-5';
// A 30k window with 4k output: effective 26k, auto-compaction at 13k, blocking line at 23k.
const LIMITS = { [MODEL]: { contextWindow: 30_000, maxOutputTokens: 4_000 } };
const SUMMARY = 'SUMMARY: keys k0 and k1 were looked up.';

const lookup = lookupTool(400);

let server: ScriptedServer | undefined;
let client: ClosableMessagesClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
});

interface Seen {
  readonly input: GovernorInput;
  readonly length: number;
}

async function run(
  script: (request: MessagesRequest) => ScriptedResponse,
  options: Partial<ContextGovernorOptions> = {},
): Promise<{ events: LoopEvent[]; terminal: TerminalEvent; seen: Seen[] }> {
  server = await startScriptedServer({ script });
  client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries: 0 });
  const governor = createContextGovernor({ client, keepRecentTokens: 200, modelLimits: LIMITS, ...options });
  const seen: Seen[] = [];
  const observed: ContextGovernor = {
    beforeCall: (input) => {
      seen.push({ input, length: input.messages.length });
      return governor.beforeCall(input);
    },
    reactiveCompact: (input) => governor.reactiveCompact(input),
  };
  const events = await lastValueFrom(
    agentLoop({ model: MODEL, prompt: 'look keys up', tools: [lookup], client, contextGovernor: observed, maxOutputTokens: 4_000 }).pipe(
      toArray(),
    ),
  );
  return { events, terminal: events.at(-1) as TerminalEvent, seen };
}

const toolReply = (n: number, usage: Usage): ScriptedResponse => ({
  kind: 'message',
  blocks: [{ type: 'tool_use', id: `toolu_${n}`, name: 'lookup', input: { key: `k${n}` } }],
  usage,
});

describe('reported usage drives the governor through the loop', () => {
  it('a large reported input count triggers auto-compaction that estimates alone never would', async () => {
    let main = 0;
    const { events, terminal, seen } = await run((request) => {
      if (isCompaction(request)) return { kind: 'message', blocks: [{ type: 'text', text: SUMMARY }] };
      const n = main++;
      // The third reply reports a prompt of 14k tokens: over the 13k line.
      if (n < 3) return toolReply(n, { input_tokens: n === 2 ? 14_000 : 300, output_tokens: 20 });
      if (n === 3) return toolReply(n, { input_tokens: 200, output_tokens: 20 });
      return { kind: 'message', blocks: [{ type: 'text', text: 'done' }], usage: { input_tokens: 250, output_tokens: 5 } };
    });
    expect(terminal.reason).toBe('completed');
    const requests = server!.requests;
    for (const r of requests) expect(r.validationErrors).toEqual([]);
    expect(requests.map((r) => (isCompaction(r.body) ? 'compact' : 'main'))).toEqual(['main', 'main', 'main', 'compact', 'main', 'main']);
    // Estimates alone stay far below the line: it was the reported usage that crossed it.
    expect(estimateMessagesTokens(seen[3]!.input.messages)).toBeLessThan(3_000);
    expect(events.filter((e) => e.type === 'compact_boundary')).toMatchObject([{ trigger: 'auto' }]);
    const boundary = events.find((e) => e.type === 'compact_boundary');
    expect(boundary?.type === 'compact_boundary' && boundary.preTokens).toBeGreaterThanOrEqual(14_000);

    // What the loop passed: no usage before the first reply; then the last reply's usage and
    // the index of the first message added after that reply (the reply sits right before it).
    expect(seen.map((s) => s.input.lastUsage?.input_tokens)).toEqual([undefined, 300, 300, 14_000, 200]);
    expect(seen[0]!.input.messagesSinceUsage).toBe(0);
    for (const { input } of seen.slice(1)) {
      const reply = input.messages[input.messagesSinceUsage - 1];
      expect(reply?.role).toBe('assistant');
      expect(input.messages.length).toBe(input.messagesSinceUsage + 1); // the tool results came after it
    }
    // After the compaction the history starts with the summary and the usage counts it afresh:
    // the reply to the compacted request reports its own usage over the compacted messages.
    const after = seen[4]!.input;
    expect(JSON.stringify(after.messages[0])).toContain(SUMMARY);
    expect(after.messages.length).toBeLessThan(seen[3]!.length);
  });

  it('after a reactive compaction the next call gets no stale usage (it described the old history)', async () => {
    let main = 0;
    const { terminal, seen } = await run((request) => {
      if (isCompaction(request)) return { kind: 'message', blocks: [{ type: 'text', text: SUMMARY }] };
      const n = main++;
      if (n < 3) return toolReply(n, { input_tokens: 500, output_tokens: 20 });
      if (n === 3) return { kind: 'http_error', status: 400, errorType: 'invalid_request_error', message: 'prompt is too long: 31000 tokens > 30000 maximum' };
      if (n === 4) return toolReply(n, { input_tokens: 400, output_tokens: 20 });
      return { kind: 'message', blocks: [{ type: 'text', text: 'done' }] };
    });
    expect(terminal.reason).toBe('completed');
    // beforeCall: initial, after replies 0, 1, 2, the retry after the reactive compaction, after reply 4.
    expect(seen.map((s) => s.input.lastUsage?.input_tokens)).toEqual([undefined, 500, 500, 500, undefined, 400]);
    // The retry's history is the compacted view, counted by estimate from its first message.
    const retry = seen[4]!.input;
    expect(retry.messagesSinceUsage).toBe(0);
    expect(JSON.stringify(retry.messages[0])).toContain(SUMMARY);
    const afterRetry = seen[5]!.input;
    expect(JSON.stringify(afterRetry.messages[0])).toContain(SUMMARY);
    expect(afterRetry.messages[afterRetry.messagesSinceUsage - 1]?.role).toBe('assistant');
    expect(afterRetry.messagesSinceUsage).toBe(afterRetry.messages.length - 1);
  });

  it('failing compactions: a warning per failure, then the breaker warning, and no more compaction requests', async () => {
    let main = 0;
    const { events, terminal } = await run((request) => {
      if (isCompaction(request)) return { kind: 'http_error', status: 500, errorType: 'api_error', message: 'summarizer down' };
      const n = main++;
      // Every reply reports 14k: every call from the second on is over the auto-compaction line
      // (but under the blocking line, so each failed compaction still lets the call go out).
      if (n < 6) return toolReply(n, { input_tokens: 14_000, output_tokens: 20 });
      return { kind: 'message', blocks: [{ type: 'text', text: 'done' }], usage: { input_tokens: 14_000, output_tokens: 5 } };
    });
    expect(terminal.reason).toBe('completed');
    const kinds = server!.requests.map((r) => (isCompaction(r.body) ? 'compact' : 'main'));
    expect(kinds).toEqual(['main', 'compact', 'main', 'compact', 'main', 'compact', 'main', 'main', 'main', 'main']);
    const warnings = events.flatMap((e) => (e.type === 'warning' ? [e.code] : []));
    expect(warnings).toEqual(['autocompact_failed', 'autocompact_failed', 'autocompact_failed', 'autocompact_disabled']);
    // Each warning comes out before the model call it preceded.
    const order = events.flatMap((e) =>
      e.type === 'warning' ? ['w'] : e.type === 'model' && e.event.type === 'message_start' ? ['m'] : [],
    );
    expect(order.join('')).toBe('mwmwmwwmmmm');
  });
});
