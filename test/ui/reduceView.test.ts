/**
 * reduceView over the events of REAL loop runs (the loop with a fake model behind its callModel
 * seam): streaming text, tool states, Edit diffs, retries, tombstones, aborts, several runs.
 */
import { describe, expect, it } from 'vitest';
import { concat, from, lastValueFrom, tap, toArray } from 'rxjs';
import { z } from 'zod';
import { agentLoop } from '../../src/loop/agentLoop.js';
import type { CallModel } from '../../src/loop/options.js';
import { ApiError } from '../../src/errors.js';
import { defineTool } from '../../src/tools/defineTool.js';
import type { TransportOutput } from '../../src/transport/types.js';
import { emptyView, reduceView } from '../../src/ui/reduceView.js';
import { lastAnswer, pendingPermissions, runningTools, totalCost } from '../../src/ui/selectors.js';
import type { ViewEvent } from '../../src/ui/types.js';
import { echoTool, eventsOf, message, runSync, syncModel, text, toolUse } from '../loop/helpers.js';
import { finalView, foldViews, indexOf, messages, tools, transcript } from './helpers.js';

const isDelta = (e: ViewEvent) => e.type === 'model' && e.event.type === 'text_delta';

describe('reduceView: text', () => {
  it('streams text in its deltas and settles it with the complete message', async () => {
    const run = await runSync(() => message([{ type: 'text', text: 'Paris is the capital.', chunkSize: 6 }]));
    const views = foldViews(run.events);
    const firstDelta = indexOf(run.events, isDelta);
    const mid = views[firstDelta]!;
    expect(messages(mid).at(-1)).toMatchObject({ role: 'assistant', streaming: true, parts: [{ kind: 'text', text: 'Paris ', streaming: true }] });
    const end = views.at(-1)!;
    expect(transcript(end)).toEqual(['user: go', 'assistant: Paris is the capital.']);
    expect(messages(end)[1]).toMatchObject({ streaming: false, uuid: expect.any(String) });
    expect(end.running).toBe(false);
    expect(end.terminal?.reason).toBe('completed');
    expect(lastAnswer(end)).toBe('Paris is the capital.');
    expect(totalCost(end)).toBe(run.terminal.costUsd);
    expect(end.usage).toEqual(run.terminal.usage);
  });

  it('keeps two replies of two runs apart (one turn each), totals summed', async () => {
    const first = await runSync(() => message([text('at once.')]));
    const second = await runSync(() => message([text('Paris')]), { messages: first.terminal.messages! });
    const view = finalView([...first.events, ...second.events]);
    expect(view.turns).toHaveLength(2);
    expect(view.turns.map((t) => t.items.filter((i) => i.kind === 'message').length)).toEqual([2, 2]);
    expect(lastAnswer(view)).toBe('Paris');
    expect(view.usage.outputTokens).toBe(first.terminal.usage.outputTokens + second.terminal.usage.outputTokens);
    expect(view.costUsd).toBeCloseTo(first.terminal.costUsd + second.terminal.costUsd, 12);
  });

  it('shows thinking as its own part', async () => {
    const run = await runSync(() => message([{ type: 'thinking', thinking: 'let me see', signature: 's' }, text('42')]));
    expect(transcript(finalView(run.events))).toEqual(['user: go', 'assistant: (thinking let me see)|42']);
  });
});

describe('reduceView: tools', () => {
  it('pending at block stop, running at tool_start, done with its result and duration', async () => {
    const run = await runSync((n) => (n === 0 ? message([text('checking'), toolUse('echo', { x: 'hi' }, 'toolu_1')]) : message([text('done')])));
    const views = foldViews(run.events);
    const at = (type: string) => views[indexOf(run.events, (e) => e.type === type || (e.type === 'model' && e.event.type === type && 'block' in e.event && e.event.block.type === 'tool_use'))]!;
    expect(tools(at('block'))[0]).toMatchObject({ id: 'toolu_1', name: 'echo', status: 'pending', input: { x: 'hi' } });
    const started = at('tool_start');
    expect(tools(started)[0]).toMatchObject({ status: 'running', startedAt: expect.any(Number) });
    expect(runningTools(started).map((t) => t.name)).toEqual(['echo']);
    const finished = tools(at('tool_result'))[0]!;
    expect(finished).toMatchObject({ status: 'done', result: { text: 'hi', isError: false }, durationMs: expect.any(Number) });
    const end = views.at(-1)!;
    // The tool_results user message is not a bubble of its own: the result sits on the call.
    expect(transcript(end)).toEqual(['user: go', 'assistant: checking|[echo done]', 'assistant: done']);
    expect(runningTools(end)).toEqual([]);
  });

  it('an unknown tool ends as error; the call that failed keeps its message', async () => {
    const run = await runSync((n) => (n === 0 ? message([toolUse('nope', {})]) : message([text('ok')])));
    const t = tools(finalView(run.events))[0]!;
    expect(t.status).toBe('error');
    expect(t.result?.isError).toBe(true);
  });

  it('an Edit call carries a line diff with context', async () => {
    const edit = defineTool({
      name: 'Edit',
      description: 'edits',
      inputSchema: z.strictObject({ file_path: z.string(), old_string: z.string(), new_string: z.string() }),
      isConcurrencySafe: false,
      call: () => 'edited',
    });
    const input = { file_path: 'a.ts', old_string: 'one\ntwo\nthree', new_string: 'one\n2\nthree' };
    const run = await runSync((n) => (n === 0 ? message([toolUse('Edit', input)]) : message([text('ok')])), { tools: [edit] });
    expect(tools(finalView(run.events))[0]!.diff).toEqual([
      { sign: ' ', text: 'one' },
      { sign: '-', text: 'two' },
      { sign: '+', text: '2' },
      { sign: ' ', text: 'three' },
    ]);
  });

  it('an abort while a tool runs leaves it cancelled, the view not running', async () => {
    const controller = new AbortController();
    const hang = defineTool({
      name: 'hang',
      description: 'never ends by itself',
      inputSchema: z.strictObject({}),
      isConcurrencySafe: true,
      interruptBehavior: 'cancel',
      call: (_input, ctx) => new Promise<string>((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped'))),
    });
    const { callModel } = syncModel(() => message([toolUse('hang', {})]));
    const events = await lastValueFrom(
      agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', tools: [hang], signal: controller.signal, deps: { callModel } }).pipe(
        tap((e) => {
          if (e.type === 'tool_start') controller.abort();
        }),
        toArray(),
      ),
    );
    const view = finalView(events);
    expect(view.terminal?.reason).toMatch(/^aborted_/);
    expect(tools(view)[0]!.status).toBe('cancelled');
    expect(view.running).toBe(false);
  });
});

describe('reduceView: retractions', () => {
  it('a stream_retry removes the partial text in its own frame; the retried answer is not doubled', async () => {
    const partial = eventsOf(message([text('Paris is')]), 0).slice(0, 4);
    const full = eventsOf(message([text('Paris is the capital.')]), 1);
    const retry: TransportOutput = { type: 'stream_retry', attempt: 1, maxRetries: 2, delayMs: 0, status: undefined, errorType: 'connection', message: 'reset' };
    const callModel: CallModel = () => concat(from(partial), from([retry]), from(full));
    const events = await lastValueFrom(agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', deps: { callModel } }).pipe(toArray()));
    const views = foldViews(events);
    const r = indexOf(events, (e) => e.type === 'stream_retry');
    expect(transcript(views[r - 1]!)).toEqual(['user: go', 'assistant: Paris is']);
    expect(transcript(views[r]!)).toEqual(['user: go']);
    expect(views[r]!.turns[0]!.items.at(-1)).toMatchObject({ kind: 'notice', level: 'retry' });
    expect(transcript(views.at(-1)!)).toEqual(['user: go', 'assistant: Paris is the capital.']);
  });

  it('a fallback tombstone removes the failed attempt, even one still streaming', async () => {
    const overloaded = new ApiError(529, 'overloaded_error', 'Overloaded', true);
    const run = await runSync(
      (_n, request) =>
        request.model === 'claude-sonnet-4-5'
          ? { kind: 'partial', message: message([text('half an answer')]), events: 3, error: overloaded }
          : message([text('from fallback')]),
      { fallbackModel: 'claude-haiku-4-5' },
    );
    const views = foldViews(run.events);
    const t = indexOf(run.events, (e) => e.type === 'tombstone');
    expect(transcript(views[t - 1]!)).toEqual(['user: go', 'assistant: half an answer']);
    expect(transcript(views[t]!)).toEqual(['user: go']);
    expect(transcript(views.at(-1)!)).toEqual(['user: go', 'assistant: from fallback']);
  });

  it('a tombstone naming a complete message removes it, wherever it is', () => {
    const base = finalView([
      { type: 'user_message', message: { role: 'user', content: 'q' }, uuid: 'u1', reason: 'prompt', chainId: 'c', depth: 0 },
      { type: 'assistant_message', message: { id: 'm1', type: 'message', role: 'assistant', model: 'x', content: [{ type: 'text', text: 'void' }], stop_reason: 'end_turn', usage: { input_tokens: 1, output_tokens: 1 } }, uuid: 'a1', chainId: 'c', depth: 0 },
    ]);
    expect(transcript(base)).toEqual(['user: q', 'assistant: void']);
    const after = reduceView(base, { type: 'tombstone', uuids: ['a1'], chainId: 'c', depth: 0 });
    expect(transcript(after)).toEqual(['user: q']);
    // The prompt's message object is the same one: untouched parts keep their identity.
    expect(messages(after)[0]).toBe(messages(base)[0]);
  });
});

describe('reduceView: structural sharing and no-op events', () => {
  it('events that change nothing shown return the same view; a delta changes only its path', async () => {
    const run = await runSync((n) => (n === 0 ? message([toolUse('echo', { x: 'a' })]) : message([{ type: 'text', text: 'abcdef', chunkSize: 2 }])), { tools: [echoTool] });
    const views = foldViews(run.events);
    run.events.forEach((e, i) => {
      const before = i === 0 ? emptyView() : views[i - 1]!;
      if (e.type === 'transition' || e.type === 'command_lifecycle') expect(views[i]).toBe(before);
      // The API's output count replaces the live estimate: only that changes, the parts stay.
      if (e.type === 'model' && e.event.type === 'message_delta') {
        const [b, a] = [messages(before).at(-1)!, messages(views[i]!).at(-1)!];
        expect(a.parts).toBe(b.parts);
        expect(a.streamUsage).toMatchObject({ estimated: false });
        expect(b.streamUsage).toMatchObject({ estimated: true });
      }
      if (isDelta(e) && i > 0) {
        const [b, a] = [messages(before), messages(views[i]!)];
        // Every message but the streaming one is the same object.
        expect(a.slice(0, -1).every((m, k) => m === b[k])).toBe(true);
        expect(a.at(-1)).not.toBe(b.at(-1));
      }
    });
  });
});

describe('reduceView: host events and notices', () => {
  it('permission requests wait until settled; a repeated request is one entry', () => {
    const ask: ViewEvent = { type: 'permission_request', requestId: 'p1', toolUseId: 't1', toolName: 'Bash', input: { command: 'ls' }, reason: 'needs approval' };
    const one = reduceView(emptyView(), ask);
    expect(pendingPermissions(one)).toHaveLength(1);
    expect(reduceView(one, ask)).toBe(one);
    const settled = reduceView(one, { type: 'permission_settled', requestId: 'p1', behavior: 'allow' });
    expect(pendingPermissions(settled)).toEqual([]);
    expect(reduceView(settled, { type: 'permission_settled', requestId: 'p1', behavior: 'allow' })).toBe(settled);
  });

  it("an MCP server's questions wait until settled; a repeated request is one entry; settling an unknown one changes nothing", () => {
    const asked = { type: 'elicitation_request' as const, requestId: 'e1', server: 'srv', message: 'Who?', fields: [{ name: 'name', title: 'Name', type: 'string' as const, required: true }] };
    const one = reduceView(emptyView(), asked);
    expect(one.elicitations).toEqual([{ requestId: 'e1', server: 'srv', message: 'Who?', fields: asked.fields }]);
    expect(reduceView(one, asked)).toBe(one);
    expect(reduceView(one, { type: 'elicitation_settled', requestId: 'e9', action: 'cancel' })).toBe(one);
    const settled = reduceView(one, { type: 'elicitation_settled', requestId: 'e1', action: 'accept' });
    expect(settled.elicitations).toEqual([]);
    expect(settled.turns).toBe(one.turns);
  });

  it('warnings and compaction boundaries are items of the turn; api retries collapse into one notice', () => {
    const tag = { chainId: 'c', depth: 0 };
    const retry = (attempt: number): ViewEvent => ({ type: 'api_retry', retry: { type: 'api_retry', attempt, maxRetries: 3, delayMs: 10, status: 529, errorType: 'overloaded_error', message: 'x' }, ...tag });
    const view = finalView([
      { type: 'warning', message: 'careful', code: 'w', ...tag },
      retry(1),
      retry(2),
      { type: 'compact_boundary', trigger: 'auto', preTokens: 1000, postTokens: 100, ...tag },
    ]);
    expect(view.turns[0]!.items.map((i) => (i.kind === 'notice' ? `${i.level}:${i.text}` : i.kind))).toEqual([
      'warning:careful',
      'retry:529 overloaded_error: retrying (2/3)',
      'compact_boundary',
    ]);
  });
});

describe('reduceView: a warning outside any turn', () => {
  it('is shown where the next turn goes, without making the view run; the next run runs and ends there', async () => {
    const warned = finalView([{ type: 'warning', message: 'MCP server "x" failed', code: 'mcp_server_failed', chainId: '', depth: 0 }]);
    expect(warned.running).toBe(false);
    expect(warned.turns[0]!.items.map((i) => i.kind)).toEqual(['notice']);
    const run = await runSync(() => message([text('Paris')]));
    const views = foldViews(run.events, warned);
    expect(views[0]!.running).toBe(true);
    const end = views.at(-1)!;
    expect(end.running).toBe(false);
    expect(end.turns).toHaveLength(1);
    expect(end.turns[0]!.items.map((i) => (i.kind === 'message' ? i.role : i.kind))).toEqual(['notice', 'user', 'assistant']);
    // After the turn ended, a warning again opens no running turn.
    expect(reduceView(end, { type: 'warning', message: 'later', chainId: '', depth: 0 }).running).toBe(false);
  });
});

describe('reduceView: history of a resumed session', () => {
  it('is one ended turn, calls paired with their results; the next run is a new turn', async () => {
    const first = await runSync((n) => (n === 0 ? message([text('checking'), toolUse('echo', { x: 'a' }, 'toolu_h')]) : message([text('all good')])));
    const resumed = reduceView(emptyView(), { type: 'history', messages: first.terminal.messages! });
    expect(transcript(resumed)).toEqual(['user: go', 'assistant: checking|[echo done]', 'assistant: all good']);
    expect(tools(resumed)[0]!.result).toEqual({ text: 'a', isError: false });
    expect(resumed.running).toBe(false);
    const next = await runSync(() => message([text('again')]), { messages: first.terminal.messages!, prompt: 'more' });
    const view = finalView([{ type: 'history', messages: first.terminal.messages! }, ...next.events]);
    expect(view.turns.map((t) => t.fromHistory)).toEqual([true, false]);
    expect(transcript(view).slice(-2)).toEqual(['user: more', 'assistant: again']);
  });
});
