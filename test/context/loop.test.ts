/**
 * The governor plugged into the real loop, over HTTP against the scripted server: prompt too
 * long at the first exchange, and after several tool rounds.
 */
import { lastValueFrom, tap, toArray } from 'rxjs';
import { afterEach, describe, expect, it } from 'vitest';
import { createContextGovernor, type ContextGovernorOptions } from '../../src/context/createContextGovernor.js';
import { agentLoop } from '../../src/loop/agentLoop.js';
import type { ContextGovernor, ReactiveCompactResult } from '../../src/loop/seams.js';
import type { LoopEvent } from '../../src/loop/types.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { isCompaction, lookupTool } from '../loop/helpers.js';
import { createMessagesClient, type ClosableMessagesClient } from '../../src/transport/createMessagesClient.js';

const TOO_LONG: ScriptedResponse = {
  kind: 'http_error',
  status: 400,
  errorType: 'invalid_request_error',
  message: 'prompt is too long: 212345 tokens > 200000 maximum',
};
const SUMMARY = 'SUMMARY: three lookups were done, keys k0..k2 hold v0..v2.';

const lookup = lookupTool(2_000);

let server: ScriptedServer | undefined;
let client: ClosableMessagesClient | undefined;
afterEach(async () => {
  await client?.close();
  await server?.close();
  client = server = undefined;
});

/** What the governor answered to each reactive compaction, as the loop received it. */
let reactiveResults: ReactiveCompactResult[] = [];

async function run(
  script: (request: MessagesRequest, index: number) => ScriptedResponse,
  options: Partial<ContextGovernorOptions> = {},
): Promise<LoopEvent[]> {
  server = await startScriptedServer({ script });
  client = createMessagesClient({ baseURL: server.baseURL, apiKey: 'sk-test', maxRetries: 0 });
  const governor = createContextGovernor({ client, keepRecentTokens: 1_000, ...options });
  reactiveResults = [];
  const observed: ContextGovernor = {
    beforeCall: (input) => governor.beforeCall(input),
    reactiveCompact: (input) => governor.reactiveCompact(input).pipe(tap((r) => reactiveResults.push(r))),
  };
  return lastValueFrom(
    agentLoop({ model: 'claude-sonnet-4-5', prompt: 'look up three keys', tools: [lookup], client, contextGovernor: observed }).pipe(toArray()),
  );
}

describe('the governor in the loop', () => {
  it('prompt too long at the first exchange: one request, prompt_too_long, saying the conversation is too short to compact', async () => {
    const events = await run(() => TOO_LONG);
    expect(server!.requests).toHaveLength(1);
    const terminal = events.at(-1)!;
    expect(terminal.type === 'terminal' && terminal.reason).toBe('prompt_too_long');
    expect(reactiveResults).toHaveLength(1);
    const explanation = reactiveResults[0]!.type === 'failed' ? reactiveResults[0]!.message : '';
    expect(explanation).toMatch(/too short to compact/);
    // The terminal carries the governor's explanation (which quotes the API's message), with the API's status.
    expect(terminal.type === 'terminal' && terminal.error).toEqual({
      kind: 'api',
      status: 400,
      errorType: 'invalid_request_error',
      message: explanation,
    });
    expect(explanation).toContain('prompt is too long: 212345 tokens > 200000 maximum');
  });

  it('prompt too long after three tool rounds: one summarization request, the same turn retried, the error never visible', async () => {
    let main = 0;
    const events = await run((request) => {
      if (isCompaction(request)) return { kind: 'message', blocks: [{ type: 'text', text: SUMMARY }] };
      const n = main++;
      if (n < 3) return { kind: 'message', blocks: [{ type: 'tool_use', name: 'lookup', input: { key: `k${n}` } }] };
      if (n === 3) return TOO_LONG;
      return { kind: 'message', blocks: [{ type: 'text', text: 'all three found' }] };
    });
    const requests = server!.requests;
    expect(requests.map((r) => (isCompaction(r.body) ? 'compact' : 'main'))).toEqual(['main', 'main', 'main', 'main', 'compact', 'main']);
    for (const r of requests) expect(r.validationErrors).toEqual([]);
    const terminal = events.at(-1)!;
    expect(terminal.type === 'terminal' && terminal.reason).toBe('completed');
    expect(JSON.stringify(events)).not.toMatch(/prompt is too long/);
    expect(events.filter((e) => e.type === 'compact_boundary')).toMatchObject([{ trigger: 'reactive' }]);

    // The retry carries the summary, then the most recent rounds verbatim, ending like the failed request.
    const failed = requests[3]!.body!.messages;
    const retry = requests[5]!.body!.messages;
    expect(JSON.stringify(retry[0])).toContain(SUMMARY);
    expect(retry.at(-1)).toEqual(failed.at(-1));
    expect(retry.length).toBeLessThan(failed.length);
  });

  it('auto-compacts before a call once the history crosses the threshold, and the loop goes on with the summary', async () => {
    // A 30k window with 4k output: auto-compaction at 13k estimated tokens (each lookup adds ~700).
    let main = 0;
    const events = await run(
      (request) => {
        if (isCompaction(request)) return { kind: 'message', blocks: [{ type: 'text', text: SUMMARY }] };
        const n = main++;
        if (n < 25) return { kind: 'message', blocks: [{ type: 'tool_use', name: 'lookup', input: { key: `k${n}` } }] };
        return { kind: 'message', blocks: [{ type: 'text', text: 'done' }] };
      },
      { modelLimits: { 'claude-sonnet-4-5': { contextWindow: 30_000, maxOutputTokens: 4_000 } } },
    );
    const terminal = events.at(-1)!;
    expect(terminal.type === 'terminal' && terminal.reason).toBe('completed');
    const requests = server!.requests;
    const compactions = requests.filter((r) => isCompaction(r.body));
    expect(compactions.length).toBeGreaterThanOrEqual(1);
    const boundaries = events.filter((e) => e.type === 'compact_boundary');
    expect(boundaries).toHaveLength(compactions.length);
    for (const b of boundaries) {
      expect(b).toMatchObject({ trigger: 'auto' });
      if (b.type === 'compact_boundary') expect(b.postTokens).toBeLessThan(b.preTokens);
    }
    for (const r of requests) expect(r.validationErrors).toEqual([]);
    // The request right after the first compaction starts with the summary.
    const first = requests.findIndex((r) => isCompaction(r.body));
    expect(JSON.stringify(requests[first + 1]!.body!.messages[0])).toContain(SUMMARY);
    expect(requests.filter((r) => !isCompaction(r.body))).toHaveLength(26);
  });
});
