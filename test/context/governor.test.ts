/**
 * The governor against the real scripted model server and the real HTTP client: threshold
 * crossings driven by the usage the server reports, the circuit breaker with an endless failure
 * script (exact request counts), rapid refill, the blocking line, reactive compaction, the
 * summary passed through into the next view, and a stored tool result read back by Read.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { lastValueFrom, toArray } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { COMPACT_SYSTEM_PROMPT } from '../../src/context/compactPrompt.js';
import { createContextGovernor, reportedPromptTokens, type ContextGovernorOptions } from '../../src/context/createContextGovernor.js';
import type { GovernorDecision, GovernorInput, ReactiveCompactResult } from '../../src/loop/seams.js';
import type { MessageParam, Usage } from '../../src/protocol/content.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { createMessagesClient, type ClosableMessagesClient } from '../../src/transport/createMessagesClient.js';
import { readTool } from '../../src/tools/builtin/read.js';
import { createWorkspace } from '../../src/tools/builtin/workspace.js';
import { toolCall, toolResult, toolTurn, user } from './histories.js';

// 60k window, 8k output: effective 52k, auto-compaction at 39k, blocking line at 49k.
const MODEL = 'test-model';
const LIMITS = { [MODEL]: { contextWindow: 60_000, maxOutputTokens: 8_000 } };
const AUTO_AT = 39_000;
const BLOCKING_AT = 49_000;
const SUMMARY = 'SUMMARY: the user wants the parser fixed; src/parse.ts was read; next step is the test.';

const isCompaction = (request: MessagesRequest | undefined) => request?.system === COMPACT_SYSTEM_PROMPT;

interface Harness {
  server: ScriptedServer;
  client: ClosableMessagesClient;
  /** Usage the next main responses report, in order (the last one repeats). */
  mainUsage: Usage[];
  compactResponse: () => ScriptedResponse;
}

let h: Harness;

async function startHarness(): Promise<Harness> {
  const harness = {
    mainUsage: [{ input_tokens: 1_000, output_tokens: 10 }],
    compactResponse: (): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'text', text: SUMMARY }] }),
  } as Omit<Harness, 'server' | 'client'> as Harness;
  harness.server = await startScriptedServer({
    script: (request) => {
      if (isCompaction(request)) return harness.compactResponse();
      const usage = harness.mainUsage.length > 1 ? harness.mainUsage.shift()! : harness.mainUsage[0]!;
      return { kind: 'message', blocks: [{ type: 'text', text: 'main answer' }], usage };
    },
  });
  harness.client = createMessagesClient({ baseURL: harness.server.baseURL, apiKey: 'sk-test-key', maxRetries: 0 });
  return harness;
}

beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.client.close();
  await h.server.close();
});

const compactionRequests = () => h.server.requests.filter((r) => isCompaction(r.body));
const mainRequests = () => h.server.requests.filter((r) => !isCompaction(r.body));

/** One main model call, like the loop makes it: the assistant reply and the usage the server reported. */
async function callModel(messages: readonly MessageParam[]): Promise<{ reply: MessageParam; usage: Usage }> {
  const events = await lastValueFrom(h.client.stream({ model: MODEL, max_tokens: 8_000, messages: [...messages] }).pipe(toArray()));
  let usage: Usage = {};
  let text = '';
  for (const event of events) {
    if (event.type === 'message_start') usage = { ...event.message.usage };
    if (event.type === 'message_delta' && event.usage) usage = { ...usage, ...event.usage };
    if (event.type === 'content_block_delta' && event.delta.type === 'text_delta') text += event.delta.text;
  }
  return { reply: { role: 'assistant', content: [{ type: 'text', text }] }, usage };
}

function input(messages: readonly MessageParam[], lastUsage: Usage | undefined, messagesSinceUsage: number, chainId = 'chain-1'): GovernorInput {
  return { messages, model: MODEL, maxOutputTokens: 8_000, lastUsage, messagesSinceUsage, signal: new AbortController().signal, chainId, depth: 0 };
}

const governor = (extra: Partial<ContextGovernorOptions> = {}) =>
  createContextGovernor({ client: h.client, modelLimits: LIMITS, keepRecentTokens: 500, ...extra });

const decide = (g: ReturnType<typeof governor>, i: GovernorInput) => lastValueFrom(g.beforeCall(i));

/**
 * Plays `rounds` loop iterations: call the model with the history, append its reply and a user
 * message, let the governor decide, adopt its view. Returns every decision.
 */
async function playRounds(g: ReturnType<typeof governor>, start: MessageParam[], rounds: number): Promise<{ decisions: GovernorDecision[]; history: readonly MessageParam[] }> {
  let history: readonly MessageParam[] = start;
  const decisions: GovernorDecision[] = [];
  for (let r = 0; r < rounds; r++) {
    const { reply, usage } = await callModel(history);
    const since = history.length + 1; // the reply is covered by the usage; the new prompt is not
    history = [...history, reply, user(`follow-up ${r}`)];
    const decision = await decide(g, input(history, usage, since));
    decisions.push(decision);
    if (decision.type === 'ok' || decision.type === 'compacted') history = decision.messages;
    else break;
  }
  return { decisions, history };
}

describe('auto-compaction driven by reported usage', () => {
  it('sends nothing extra below the threshold, compacts once above it, and passes the summary into the next request', async () => {
    const g = governor({ keepRecentTokens: 100 });
    h.mainUsage = [{ input_tokens: 20_000, output_tokens: 100 }, { input_tokens: AUTO_AT + 500, output_tokens: 100 }, { input_tokens: 3_000, output_tokens: 100 }];
    const start = toolTurn('t', 3, 200);
    const { decisions, history } = await playRounds(g, start, 3);

    expect(decisions.map((d) => d.type)).toEqual(['ok', 'compacted', 'ok']);
    expect(compactionRequests()).toHaveLength(1);
    expect(mainRequests()).toHaveLength(3);
    const compacted = decisions[1]!;
    if (compacted.type !== 'compacted') throw new Error('unreachable');
    expect(compacted.boundary.trigger).toBe('auto');
    expect(compacted.boundary.preTokens).toBeGreaterThanOrEqual(AUTO_AT + 600);
    expect(compacted.boundary.postTokens).toBeLessThan(2_000);

    // The summarization request: our instructions, no tools, one user message with the transcript.
    const body = compactionRequests()[0]!.body!;
    expect(body.tools).toBeUndefined();
    expect(body.messages).toHaveLength(1);
    expect(body.messages[0]!.content).toContain('t: please do the work');
    expect(compactionRequests()[0]!.validationErrors).toEqual([]);

    // The request after compaction carries the summary and the recent messages verbatim.
    const after = mainRequests()[2]!;
    expect(after.validationErrors).toEqual([]);
    expect(after.rawBody).toContain(SUMMARY);
    expect(after.body!.messages.at(-1)).toEqual(user('follow-up 1'));
    expect(after.body!.messages.length).toBeLessThan(start.length);
    expect(history.at(-1)).toEqual(user('follow-up 2'));
  });

  it('ends rapid_refill_breaker when the context crosses the threshold again right after a compaction', async () => {
    const g = governor();
    h.mainUsage = [{ input_tokens: AUTO_AT + 1_000 }, { input_tokens: AUTO_AT + 2_000 }];
    const { decisions } = await playRounds(g, toolTurn('t', 3, 200), 5);
    expect(decisions.map((d) => d.type)).toEqual(['compacted', 'rapid_refill_breaker']);
    expect(compactionRequests()).toHaveLength(1);
    expect(mainRequests()).toHaveLength(2);
    const last = decisions[1]!;
    expect(last.type === 'rapid_refill_breaker' && last.message).toMatch(/filled up again right after/);
  });

  it('stops trying after 3 consecutive failures and says so once; over the blocking line it sends nothing', async () => {
    const g = governor();
    h.compactResponse = () => ({ kind: 'http_error', status: 500, message: 'summarizer down' });
    h.mainUsage = [{ input_tokens: AUTO_AT + 1_000 }];
    const { decisions } = await playRounds(g, toolTurn('t', 3, 200), 5);

    expect(decisions.map((d) => d.type)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok']);
    expect(compactionRequests()).toHaveLength(3);
    expect(mainRequests()).toHaveLength(5);
    const codes = decisions.map((d) => (d.notices ?? []).map((n) => (n.type === 'warning' ? n.code : n.type)));
    expect(codes).toEqual([
      ['autocompact_failed'],
      ['autocompact_failed'],
      ['autocompact_failed', 'autocompact_disabled'],
      [],
      [],
    ]);

    // Over the blocking line, with compaction given up: no request is sent.
    h.mainUsage = [{ input_tokens: BLOCKING_AT + 10 }];
    const before = h.server.requests.length;
    const { decisions: blocked } = await playRounds(g, toolTurn('u', 2, 200), 1);
    expect(blocked.map((d) => d.type)).toEqual(['blocking_limit']);
    expect(h.server.requests.length).toBe(before + 1); // the main call that reported the usage, nothing after
    expect(blocked[0]!.type === 'blocking_limit' && blocked[0]!.message).toMatch(/stopped after 3 consecutive failures/);
  });

  it('a success resets the failure count', async () => {
    const g = governor();
    let calls = 0;
    h.compactResponse = () => (++calls % 3 === 0 ? { kind: 'message', blocks: [{ type: 'text', text: SUMMARY }] } : { kind: 'http_error', status: 500 });
    h.mainUsage = [{ input_tokens: AUTO_AT + 1_000 }, { input_tokens: AUTO_AT + 1_000 }, { input_tokens: AUTO_AT + 1_000 }, { input_tokens: 100 }, { input_tokens: AUTO_AT + 1_000 }, { input_tokens: AUTO_AT + 1_000 }, { input_tokens: AUTO_AT + 1_000 }];
    const { decisions } = await playRounds(g, toolTurn('t', 3, 200), 7);
    expect(decisions.map((d) => d.type)).toEqual(['ok', 'ok', 'compacted', 'ok', 'ok', 'ok', 'compacted']);
    expect(compactionRequests()).toHaveLength(6);
  });

  it('is cold: nothing is sent before subscribe', async () => {
    const g = governor();
    const history = [...toolTurn('t', 3, 200), { role: 'assistant' as const, content: 'ok' }, user('next')];
    const decision$ = g.beforeCall(input(history, { input_tokens: AUTO_AT + 1 }, history.length - 1));
    // A round trip to the same server instead of a 50 ms nap: a request sent before subscribe
    // would have been seen by then.
    expect((await fetch(`${h.server.baseURL}/not-recorded`)).status).toBe(404);
    expect(h.server.requests).toHaveLength(0);
    expect((await lastValueFrom(decision$)).type).toBe('compacted');
    expect(h.server.requests).toHaveLength(1);
  });

  it('over the blocking line with a history too short to compact: blocking_limit and no request', async () => {
    const g = governor();
    const hugePrompt = [user('p'.repeat(3 * BLOCKING_AT))];
    const decision = await decide(g, input(hugePrompt, undefined, 0));
    expect(decision.type).toBe('blocking_limit');
    expect(decision.type === 'blocking_limit' && decision.message).toMatch(/too short to compact/);
    expect(h.server.requests).toHaveLength(0);
  });

  it('does not count usage from before a compaction against the compacted view', async () => {
    const g = governor();
    h.mainUsage = [{ input_tokens: AUTO_AT + 1_000 }];
    const start = toolTurn('t', 3, 200);
    const { reply, usage } = await callModel(start);
    const history = [...start, reply, user('next')];
    const first = await decide(g, input(history, usage, start.length + 1));
    expect(first.type).toBe('compacted');
    if (first.type !== 'compacted') return;
    // A loop that did not reset its usage after compacting: the old usage must not count again.
    const second = await decide(g, input(first.messages, usage, first.messages.length));
    expect(second.type).toBe('ok');
  });

  it('unsubscribing during the summarization aborts it and counts no failure', async () => {
    const g = governor({ maxConsecutiveFailures: 1 });
    h.compactResponse = () => ({ kind: 'stall' });
    const history = [...toolTurn('t', 3, 200), { role: 'assistant' as const, content: 'ok' }, user('next')];
    const subscription = g.beforeCall(input(history, { input_tokens: AUTO_AT + 1 }, history.length - 1)).subscribe();
    await h.server.waitForRequests(1);
    subscription.unsubscribe();
    await h.server.waitForClientClose(0);
    h.compactResponse = () => ({ kind: 'message', blocks: [{ type: 'text', text: SUMMARY }] });
    const decision = await decide(g, input(history, { input_tokens: AUTO_AT + 1 }, history.length - 1));
    expect(decision.type).toBe('compacted');
    expect(compactionRequests()).toHaveLength(2);
  });
});

describe('reactive compaction', () => {
  const reactive = (g: ReturnType<typeof governor>, messages: readonly MessageParam[], chainId = 'chain-1'): Promise<ReactiveCompactResult> =>
    lastValueFrom(g.reactiveCompact({ ...input(messages, undefined, 0, chainId), error: 'prompt is too long: 250000 tokens > 200000 maximum' }));

  it('on the first exchange: no request, and a message saying the conversation is too short to compact', async () => {
    const result = await reactive(governor(), [user('an enormous prompt')]);
    expect(result.type).toBe('failed');
    expect(result.type === 'failed' && result.message).toMatch(/too short to compact/);
    expect(h.server.requests).toHaveLength(0);
  });

  it('after several tool rounds: one summarization request and a valid view ending with the same request', async () => {
    const history = toolTurn('t', 3, 2_000);
    const g = governor();
    const result = await reactive(g, history);
    expect(result.type).toBe('compacted');
    if (result.type !== 'compacted') return;
    expect(result.boundary.trigger).toBe('reactive');
    expect(compactionRequests()).toHaveLength(1);
    expect(result.messages.at(-1)).toBe(history.at(-1));
    expect(JSON.stringify(result.messages[0])).toContain(SUMMARY);
    // Retried with the view: the server accepts it.
    await callModel(result.messages);
    expect(mainRequests()[0]!.validationErrors).toEqual([]);

    // Once per user turn: a second prompt-too-long in the same chain is not compacted again.
    const again = await reactive(g, result.messages);
    expect(again.type === 'failed' && again.message).toMatch(/already compacted once in this turn/);
    expect(compactionRequests()).toHaveLength(1);
    // A new user turn may compact again.
    expect((await reactive(g, [...result.messages, { role: 'assistant', content: 'x' }, user('more')], 'chain-2')).type).toBe('compacted');
  });

  it('the size the server reported scales what is kept: a history we estimate small keeps only its last round', async () => {
    // Estimated at about 150 tokens, under the 500 kept verbatim; the server counted 250,000.
    const history = toolTurn('s', 3, 100);
    const counted = await reactive(governor(), history);
    if (counted.type !== 'compacted') throw new Error(`expected compacted, got ${counted.type}`);
    expect(counted.messages.slice(1)).toEqual(history.slice(-2));
    const transcript = JSON.stringify(compactionRequests()[0]!.body!.messages);
    expect(transcript).toContain('s_t0');
    expect(transcript).toContain('s_t1');
    // Without a reported size our estimate is all there is: everything after the prompt is kept.
    const uncounted = await lastValueFrom(governor().reactiveCompact({ ...input(history, undefined, 0, 'chain-x'), error: 'prompt is too long' }));
    if (uncounted.type !== 'compacted') throw new Error(`expected compacted, got ${uncounted.type}`);
    expect(uncounted.messages.slice(1)).toEqual(history.slice(1));
  });

  it('reportedPromptTokens reads the size from the error text', () => {
    expect(reportedPromptTokens('prompt is too long: 250000 tokens > 200000 maximum')).toBe(250_000);
    expect(reportedPromptTokens('prompt is too long')).toBeUndefined();
    expect(reportedPromptTokens('input length and max_tokens exceed context limit: 1 token > 0')).toBe(1);
  });

  it('a failed summarization is reported with its cause', async () => {
    h.compactResponse = () => ({ kind: 'http_error', status: 400, message: 'prompt is too long' });
    const result = await reactive(governor(), toolTurn('t', 2, 100));
    expect(result.type === 'failed' && result.message).toMatch(/Compacting the conversation failed/);
  });
});

describe('tool-result budget in the governor', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'rxagent-gov-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('stores an oversized result once, and the Read tool can read the stored file', async () => {
    const sessionDir = join(dir, 'session');
    const g = governor({ sessionDir, tools: [{ name: 'Bash', maxResultSizeChars: 1_000 }] });
    const lines = Array.from({ length: 500 }, (_, i) => `output line ${i}`).join('\n');
    const history = [user('run it'), toolCall('toolu_1', 'Bash', { command: 'make' }), toolResult('toolu_1', lines)];
    const decision = await decide(g, input(history, undefined, 0));
    if (decision.type !== 'ok') throw new Error(`expected ok, got ${decision.type}`);
    const replaced = decision.messages[2]!.content as ReadonlyArray<{ content: string }>;
    const path = /saved in the file (\S+);/.exec(replaced[0]!.content)![1]!;

    const workspace = createWorkspace({ cwd: dir, roots: [sessionDir] });
    // Read answers with its text and its structured result (an outcome).
    const { output: read } = (await readTool(workspace).call(
      { file_path: path, offset: 499, limit: 2 },
      { signal: new AbortController().signal, toolUseId: 'r1', shared: {}, progress: () => {} },
    )) as { output: string };
    expect(String(read)).toContain('output line 498');
    expect(String(read)).toContain('output line 499');
    expect(h.server.requests).toHaveLength(0);
  });
});

describe('snip and microcompact in the governor', () => {
  const threeTurns = () => [
    ...toolTurn('one', 2, 3_000),
    { role: 'assistant' as const, content: 'done one' },
    ...toolTurn('two', 2, 3_000),
    { role: 'assistant' as const, content: 'done two' },
    ...toolTurn('three', 3, 3_000),
  ];
  const boundaries = (d: GovernorDecision) =>
    (d.notices ?? []).flatMap((n) => (n.type === 'compact_boundary' ? [n.boundary] : []));

  it('reports each layer as a boundary with the tokens before and after, and sends the smaller view', async () => {
    const g = governor({ snip: { maxTurns: 1 }, microcompact: { keepRecentRounds: 1 } });
    const history = threeTurns();
    const decision = await decide(g, input(history, undefined, 0));
    if (decision.type !== 'ok') throw new Error(decision.type);
    const [snipped, cleared] = boundaries(decision);
    expect(snipped).toMatchObject({ trigger: 'snip' });
    expect(snipped!.postTokens).toBeLessThan(snipped!.preTokens - 3_000);
    expect(cleared).toMatchObject({ trigger: 'microcompact', preTokens: snipped!.postTokens });
    expect(cleared!.postTokens).toBeLessThan(cleared!.preTokens - 1_500);
    expect(decision.messages[0]).toEqual(user('three: please do the work'));
    expect(decision.messages.at(-1)).toBe(history.at(-1));
  });

  it('does not subtract the same savings twice when the loop keeps its full history and the usage describes the sent view', async () => {
    const g = governor({ snip: { maxTurns: 1 } });
    const history = threeTurns();
    const usage = { input_tokens: 5_000 };
    const first = await decide(g, input(history, usage, history.length - 1));
    const second = await decide(g, input(history, { input_tokens: 5_000 }, history.length - 1));
    expect(boundaries(first)[0]!.postTokens).toBeLessThan(5_000);
    // Second call: the same turns dropped again are no news (no boundary), and the usage already
    // excludes them, so the count is the usage plus the last message, over the snip line or not.
    expect(boundaries(second)).toEqual([]);
    const third = await decide(g, input(history, { input_tokens: AUTO_AT - 10 }, history.length - 1));
    expect(third.type).toBe('compacted'); // nothing subtracted: AUTO_AT - 10 + the last message crosses
  });
});

