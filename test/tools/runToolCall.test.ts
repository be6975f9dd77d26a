import { describe, expect, it } from 'vitest';
import { firstValueFrom, lastValueFrom, Observable, of, timer, toArray, map } from 'rxjs';
import { z } from 'zod';
import type { InvalidToolUseBlock } from '../../src/assembly/types.js';
import type { ToolUseBlock } from '../../src/protocol/content.js';
import { defineTool } from '../../src/tools/defineTool.js';
import type { CanUseTool, ToolHooks } from '../../src/tools/hooks.js';
import { runToolCall, type PipelineTraceEntry, type RunToolCallOptions } from '../../src/tools/runToolCall.js';
import { ToolFailure } from '../../src/tools/toolFailure.js';
import type { Tool, ToolEvent } from '../../src/tools/types.js';

const use = (name: string, input: Record<string, unknown>, id = 'tu_1'): ToolUseBlock => ({ type: 'tool_use', id, name, input });

function echoTool(overrides: Partial<Parameters<typeof defineTool<{ path: string; n?: number | undefined }, string>>[0]> = {}): Tool {
  return defineTool({
    name: 'Read',
    description: 'reads',
    inputSchema: z.strictObject({ path: z.string(), n: z.number().optional() }),
    isConcurrencySafe: true,
    call: ({ path }) => `contents of ${path}`,
    ...overrides,
  });
}

async function run(block: ToolUseBlock | InvalidToolUseBlock, tools: Tool[], options: Partial<RunToolCallOptions> = {}) {
  const trace: PipelineTraceEntry[] = [];
  const events = await lastValueFrom(
    runToolCall(block, { tools, trace: (e) => trace.push(e), ...options }).pipe(toArray()),
  );
  const results = events.filter((e): e is Extract<ToolEvent, { type: 'tool_result' }> => e.type === 'tool_result');
  expect(results).toHaveLength(1); // exactly one result, whatever happened
  const result = results[0]!;
  return { events, result, text: String(result.result.content), steps: trace.map((t) => `${t.step}:${t.status}`) };
}

const ALL_OK = [
  'find_tool:ok',
  'abort_check:ok',
  'parse_input:ok',
  'validate_schema:ok',
  'validate_input:skipped',
  'pre_tool_use:skipped',
  'permission:ok',
  'revalidate_input:skipped',
  'mark_in_progress:ok',
  'call:ok',
  'map_result:ok',
  'post_tool_use:skipped',
  'validate_output:skipped',
  'emit_result:ok',
  'clear_in_progress:ok',
];

describe('runToolCall: the steps that run, in order', () => {
  it('a successful call runs all 15 steps and emits start then result', async () => {
    const { events, result, steps } = await run(use('Read', { path: 'a.txt' }), [echoTool()]);
    expect(steps).toEqual(ALL_OK);
    expect(events.map((e) => e.type)).toEqual(['tool_start', 'tool_result']);
    expect(result.result).toEqual({ type: 'tool_result', tool_use_id: 'tu_1', content: 'contents of a.txt' });
  });

  it('unknown tool: names it, suggests the closest names, stops at step 1', async () => {
    const tools = [echoTool(), echoTool({ name: 'Write' }), echoTool({ name: 'Grep' })];
    const { result, text, steps, events } = await run(use('read', { path: 'a' }), tools);
    expect(steps).toEqual(['find_tool:failed', 'emit_result:ok', 'clear_in_progress:skipped']);
    expect(result.result.is_error).toBe(true);
    expect(text).toContain('no tool named `read`');
    expect(text).toContain('`Read`');
    expect(text).not.toContain('`Grep`');
    expect(events.map((e) => e.type)).toEqual(['tool_result']);
    const none = await run(use('Zzzzzzzz', {}), tools);
    expect(none.text).toMatch(/available tools are `Read`, `Write`, `Grep`/);
  });

  it('aborted before start: no parsing, no hooks', async () => {
    const controller = new AbortController();
    controller.abort();
    let hookCalls = 0;
    const hooks: ToolHooks = { preToolUse: [() => void hookCalls++] };
    const { steps, text } = await run(use('Read', { path: 'a' }), [echoTool()], { signal: controller.signal, hooks });
    expect(steps).toEqual(['find_tool:ok', 'abort_check:failed', 'emit_result:ok', 'clear_in_progress:skipped']);
    expect(text).toMatch(/cancelled before it started/);
    expect(hookCalls).toBe(0);
  });

  it('input that is not JSON: quotes the first 200 characters and asks for valid JSON', async () => {
    const raw = '{"path": "' + 'x'.repeat(300);
    const block: InvalidToolUseBlock = { ...use('Read', {}), invalid: { rawInput: raw, reason: 'Unterminated string' } };
    const { steps, text, result } = await run(block, [echoTool()]);
    expect(steps.slice(0, 3)).toEqual(['find_tool:ok', 'abort_check:ok', 'parse_input:failed']);
    expect(result.result.is_error).toBe(true);
    expect(text).toContain(raw.slice(0, 200));
    expect(text).not.toContain(raw.slice(0, 201));
    expect(text).toMatch(/310 characters in all/);
    expect(text).toMatch(/valid JSON object/);
  });

  it('schema errors: one line per issue naming the parameter', async () => {
    const { steps, text } = await run(use('Read', { n: 'three', extra: true }), [echoTool()]);
    expect(steps[3]).toBe('validate_schema:failed');
    expect(text.split('\n').filter((l) => l.startsWith('- '))).toEqual([
      '- missing required parameter `path`',
      '- `n` should be a number (got string)',
      '- unexpected parameter `extra`',
    ]);
  });

  it("the tool's validateInput refusal", async () => {
    const tool = echoTool({ validateInput: ({ path }) => (path.startsWith('/') ? { ok: true } : { ok: false, message: 'path must be absolute' }) });
    const { steps, text } = await run(use('Read', { path: 'rel' }), [tool]);
    expect(steps[4]).toBe('validate_input:failed');
    expect(text).toBe('`Read` refused this input: path must be absolute');
  });

  it('permission denied, with the reason; an ask with nobody to ask is a denial', async () => {
    let called = 0;
    const tool = echoTool({ call: () => `${++called}` });
    const deny: CanUseTool = () => ({ behavior: 'deny', message: 'reads outside the project are not allowed' });
    const denied = await run(use('Read', { path: '/etc/passwd' }), [tool], { canUseTool: deny });
    expect(denied.steps.slice(5, 7)).toEqual(['pre_tool_use:skipped', 'permission:failed']);
    expect(denied.text).toMatch(/denied: reads outside the project are not allowed/);
    const ask: CanUseTool = async () => ({ behavior: 'ask', message: 'first use of Read' });
    const asked = await run(use('Read', { path: 'a' }), [tool], { canUseTool: ask });
    expect(asked.steps[6]).toBe('permission:failed');
    expect(asked.text).toMatch(/needs the user's approval \(first use of Read\).*cannot ask/);
    const hookAsk = await run(use('Read', { path: 'a' }), [tool], { hooks: { preToolUse: [() => ({ decision: 'ask', reason: 'policy' })] } });
    expect(hookAsk.text).toMatch(/approval \(policy\)/);
    expect(called).toBe(0);
  });

  it('a permission answer of an unknown behaviour (a cast or plain JS) denies: the tool is not called', async () => {
    let called = 0;
    const tool = echoTool({ call: () => `${++called}` });
    const odd = (() => ({ behavior: 'allowed' })) as unknown as CanUseTool;
    const { steps, text, result } = await run(use('Read', { path: 'a' }), [tool], { canUseTool: odd });
    expect(steps[6]).toBe('permission:failed');
    expect(result.result.is_error).toBe(true);
    expect(text).toBe('The permission check failed while checking the call to `Read`, so the tool was not called: it answered {"behavior":"allowed"}');
    expect(called).toBe(0);
  });

  it('a PreToolUse hook block carries its reason; the tool is not called', async () => {
    let called = false;
    const tool = echoTool({ call: () => ((called = true), 'x') });
    const { steps, text } = await run(use('Read', { path: 'a' }), [tool], {
      hooks: { preToolUse: [async () => ({ decision: 'deny', reason: 'secrets live there' })] },
    });
    expect(steps[5]).toBe('pre_tool_use:failed');
    expect(text).toBe('A PreToolUse hook blocked `Read`: secrets live there');
    expect(called).toBe(false);
  });

  it('an input rewritten invalidly by a hook is a configuration error and never reaches the tool', async () => {
    let called = false;
    const tool = echoTool({ call: () => ((called = true), 'x') });
    const { steps, text, result } = await run(use('Read', { path: 'a' }), [tool], {
      hooks: { preToolUse: [() => ({ updatedInput: { path: 42 } })] },
    });
    expect(steps.slice(5, 8)).toEqual(['pre_tool_use:ok', 'permission:ok', 'revalidate_input:failed']);
    expect(result.result.is_error).toBe(true);
    expect(text).toMatch(/^Configuration error: a PreToolUse hook rewrote the input/);
    expect(text).toContain('`path` should be a string');
    expect(called).toBe(false);
  });

  it('a valid rewrite (hook then permission) is what the tool receives', async () => {
    const seen: unknown[] = [];
    const tool = echoTool({ call: (input) => (seen.push(input), 'ok') });
    const { steps } = await run(use('Read', { path: 'a' }), [tool], {
      hooks: { preToolUse: [() => ({ updatedInput: { path: 'b' }, decision: 'allow' })] },
      canUseTool: (_name, input, ctx) => {
        expect(ctx.hookDecision).toBe('allow');
        return { behavior: 'allow', updatedInput: { ...(input as object), n: 2 } };
      },
    });
    expect(steps[7]).toBe('revalidate_input:ok');
    expect(seen).toEqual([{ path: 'b', n: 2 }]);
  });

  it('a throwing trace observer changes nothing: the call still ends with its own result', async () => {
    const events = await lastValueFrom(
      runToolCall(use('Read', { path: 'a.txt' }), {
        tools: [echoTool()],
        trace: () => {
          throw new Error('trace broke');
        },
      }).pipe(toArray()),
    );
    expect(events.map((e) => e.type)).toEqual(['tool_start', 'tool_result']);
    expect(events[1]).toMatchObject({ result: { content: 'contents of a.txt' } });
  });

  it('a tool that throws synchronously: its message, no stack', async () => {
    const tool = echoTool({
      call: () => {
        throw new Error('disk on fire');
      },
    });
    const { steps, text, events } = await run(use('Read', { path: 'a' }), [tool]);
    expect(steps.slice(8)).toEqual(['mark_in_progress:ok', 'call:ok', 'call:failed', 'emit_result:ok', 'clear_in_progress:ok']);
    expect(text).toBe('`Read` failed: disk on fire');
    expect(events.map((e) => e.type)).toEqual(['tool_start', 'tool_result']);
  });

  it('a hook that throws fails closed', async () => {
    const { steps, text } = await run(use('Read', { path: 'a' }), [echoTool()], {
      hooks: { preToolUse: [() => Promise.reject(new Error('hook crashed'))] },
    });
    expect(steps[5]).toBe('pre_tool_use:failed');
    expect(text).toMatch(/PreToolUse hook failed .* hook crashed/);
  });
});

describe('runToolCall: what call may return', () => {
  it('a Promise of a ToolOutcome with endsTurn and a context change', async () => {
    const change = (s: Readonly<Record<string, unknown>>) => ({ ...s, x: 1 });
    const tool = echoTool({ call: async () => ({ type: 'outcome', output: 'done', endsTurn: true, contextChange: change }) });
    const { result } = await run(use('Read', { path: 'a' }), [tool]);
    expect(result.result.content).toBe('done');
    expect(result.endsTurn).toBe(true);
    expect(result.contextChange).toBe(change);
  });

  it('an AsyncIterable reporting progress, then its outcome', async () => {
    const tool = defineTool({
      name: 'Count',
      description: 'counts',
      inputSchema: z.strictObject({ to: z.number() }),
      isConcurrencySafe: true,
      async *call({ to }) {
        for (let i = 1; i <= to; i++) yield { type: 'progress' as const, data: i };
        yield { type: 'outcome' as const, output: { counted: to } };
      },
    });
    const { events, result } = await run(use('Count', { to: 3 }), [tool]);
    expect(events.map((e) => (e.type === 'tool_progress' ? e.data : e.type))).toEqual(['tool_start', 1, 2, 3, 'tool_result']);
    expect(result.result.content).toBe('{"counted":3}');
  });

  it('an Observable, with ctx.progress too', async () => {
    const tool = echoTool({
      call: (_input, ctx) => {
        ctx.progress('warming up');
        return timer(5).pipe(map(() => ({ type: 'outcome' as const, output: 'observed' })));
      },
    });
    const { events, result } = await run(use('Read', { path: 'a' }), [tool]);
    expect(events.map((e) => e.type)).toEqual(['tool_start', 'tool_progress', 'tool_result']);
    expect(result.result.content).toBe('observed');
  });

  it('a never-ending call times out, and its signal is aborted', async () => {
    let signal: AbortSignal | undefined;
    const tool = echoTool({
      timeoutMs: 30,
      call: (_input, ctx) => ((signal = ctx.signal), new Observable<never>(() => undefined)),
    });
    const { text, steps } = await run(use('Read', { path: 'a' }), [tool]);
    expect(text).toMatch(/did not finish within 30 ms/);
    expect(steps.slice(-3)).toEqual(['call:failed', 'emit_result:ok', 'clear_in_progress:ok']);
    expect(signal?.aborted).toBe(true);
  });

  it('a tool that ignores its signal is cut off: its late result is dropped', async () => {
    let resolveLate!: (v: string) => void;
    const late = new Promise<string>((resolve) => (resolveLate = resolve));
    const tool = echoTool({ call: () => late });
    const { text, events } = await run(use('Read', { path: 'a' }), [tool], { timeoutMs: 20 });
    expect(text).toMatch(/did not finish within 20 ms/);
    resolveLate('too late');
    await new Promise((r) => setImmediate(r));
    expect(events.filter((e) => e.type === 'tool_result')).toHaveLength(1);
  });

  it('unsubscribing aborts ctx.signal and closes an async generator at once', async () => {
    let signal: AbortSignal | undefined;
    let closed = false;
    const tool = echoTool({
      call: async function* (_input, ctx) {
        signal = ctx.signal;
        try {
          yield { type: 'progress' as const, data: 'started' };
          await new Promise(() => undefined); // never resolves
        } finally {
          closed = true;
        }
      },
    });
    const progress = await firstValueFrom(runToolCall(use('Read', { path: 'a' }), { tools: [tool] }).pipe(
      // first progress, then unsubscribe
      (source) => new Observable<ToolEvent>((s) => source.subscribe({ next: (e) => e.type === 'tool_progress' && (s.next(e), s.complete()) })),
    ));
    expect(progress.type).toBe('tool_progress');
    await new Promise((r) => setImmediate(r));
    expect(signal?.aborted).toBe(true);
    // The bridge pulls no further item once unsubscribed, so the generator sits at its yield and
    // return() runs its `finally` now, not after a next item that would never come.
    expect(closed).toBe(true);
  });

  it('an outer signal cancels a running call with a cancellation result', async () => {
    const controller = new AbortController();
    // Aborted once the call is running (a 10 ms timer could fire before it started).
    const tool = echoTool({ call: () => (queueMicrotask(() => controller.abort()), new Promise<string>(() => undefined)) });
    const pending = run(use('Read', { path: 'a' }), [tool], { signal: controller.signal });
    const { text } = await pending;
    expect(text).toBe('The call to `Read` was cancelled before it finished.');
  });
});

describe('runToolCall: results', () => {
  it('cuts results over maxResultSizeChars with a marker saying how much was cut', async () => {
    const tool = echoTool({ maxResultSizeChars: 10, call: () => 'y'.repeat(25) });
    const { text } = await run(use('Read', { path: 'a' }), [tool]);
    expect(text.startsWith('y'.repeat(10) + '\n\n[')).toBe(true);
    expect(text).toMatch(/15 more characters cut.*limit of 10 characters/);
  });

  it('PostToolUse rewrites must pass the output schema, else the original is kept with a note', async () => {
    const tool = defineTool({
      name: 'Num',
      description: 'n',
      inputSchema: z.strictObject({}),
      outputSchema: z.number(),
      isConcurrencySafe: true,
      call: () => 7,
    });
    const bad = await run(use('Num', {}), [tool], { hooks: { postToolUse: [() => ({ updatedOutput: 'seven' })] } });
    expect(bad.text).toBe('7');
    expect(bad.steps).toContain('validate_output:failed');
    expect(bad.result.additionalContext?.[0]).toMatch(/did not match the output schema/);
    const good = await run(use('Num', {}), [tool], { hooks: { postToolUse: [() => ({ updatedOutput: 8 })] } });
    expect(good.text).toBe('8');
    expect(good.steps).toContain('validate_output:ok');
  });

  it('a PostToolUse block turns the result into an error carrying the reason', async () => {
    const { result, text } = await run(use('Read', { path: 'a' }), [echoTool()], {
      hooks: { postToolUse: [({ result: r }) => ({ block: `leaks a token (${String(r.content).length} chars)`, additionalContext: 'note', stopContinuation: { reason: 'stop' } })] },
    });
    expect(result.result.is_error).toBe(true);
    expect(text).toBe('A PostToolUse hook flagged this result: leaks a token (13 chars)\n\ncontents of a');
    expect(result.additionalContext).toEqual(['note']);
    expect(result.stopContinuation).toEqual({ reason: 'stop' });
  });

  it('is cold: nothing runs before subscribe, each subscription runs again', async () => {
    let calls = 0;
    const call$ = runToolCall(use('Read', { path: 'a' }), { tools: [echoTool({ call: () => `${++calls}` })] });
    expect(calls).toBe(0);
    await lastValueFrom(call$);
    await lastValueFrom(call$);
    expect(calls).toBe(2);
  });

  it('a synchronous call stays synchronous (no microtask hop)', () => {
    const seen: string[] = [];
    of(0).subscribe(() => runToolCall(use('Read', { path: 'a' }), { tools: [echoTool()] }).subscribe((e) => seen.push(e.type)));
    expect(seen).toEqual(['tool_start', 'tool_result']);
  });
});

describe('runToolCall: a structured result beside the text', () => {
  const structuredTool = () =>
    echoTool({ call: ({ path }) => ({ type: 'outcome', output: `contents of ${path}`, structured: { filePath: path, lines: 1 } }) });

  it('the tool_result event carries it; the block the model gets is only the rendered text; PostToolUse sees both', async () => {
    const seen: unknown[] = [];
    const { result } = await run(use('Read', { path: 'a.txt' }), [structuredTool()], { hooks: { postToolUse: [(input) => void seen.push([input.output, input.structured])] } });
    expect(result.structured).toEqual({ filePath: 'a.txt', lines: 1 });
    expect(result.result).toEqual({ type: 'tool_result', tool_use_id: 'tu_1', content: 'contents of a.txt' });
    expect(seen).toEqual([['contents of a.txt', { filePath: 'a.txt', lines: 1 }]]);
  });

  it('a PostToolUse rewrite of the output drops it (it would describe output the model never got); a blocked result keeps it', async () => {
    const rewritten = await run(use('Read', { path: 'a.txt' }), [structuredTool()], { hooks: { postToolUse: [() => ({ updatedOutput: 'redacted' })] } });
    expect(rewritten.text).toBe('redacted');
    expect(rewritten.result).not.toHaveProperty('structured');
    const blocked = await run(use('Read', { path: 'a.txt' }), [structuredTool()], { hooks: { postToolUse: [() => ({ block: 'no' })] } });
    expect(blocked.result.result.is_error).toBe(true);
    expect(blocked.result.structured).toEqual({ filePath: 'a.txt', lines: 1 });
  });

  it('failures and plain tools have none', async () => {
    expect((await run(use('Read', { path: 'a.txt' }), [echoTool()])).result).not.toHaveProperty('structured');
    expect((await run(use('Read', {}), [structuredTool()])).result).not.toHaveProperty('structured');
  });

  it("a ToolFailure's structured part rides on the error result; a plain Error's does not exist", async () => {
    const failing = echoTool({ call: () => Promise.reject(new ToolFailure('exit 3', { code: 3 })) });
    const { result, text } = await run(use('Read', { path: 'a' }), [failing]);
    expect(result.result.is_error).toBe(true);
    expect(text).toContain('exit 3');
    expect(result.structured).toEqual({ code: 3 });
    const plain = await run(use('Read', { path: 'a' }), [echoTool({ call: () => Promise.reject(new Error('exit 3')) })]);
    expect(plain.result).not.toHaveProperty('structured');
  });

  it("a call the pipeline stops midway gets the tool's stoppedResult: its timeout, an outer abort; one stopped before it started gets none", async () => {
    const stoppedResult = (how: 'interrupted' | 'timed_out') => ({ how });
    const timedOut = await run(use('Read', { path: 'a' }), [echoTool({ timeoutMs: 30, stoppedResult, call: () => new Observable<never>(() => undefined) })]);
    expect(timedOut.text).toMatch(/did not finish within 30 ms/);
    expect(timedOut.result.structured).toEqual({ how: 'timed_out' });

    const controller = new AbortController();
    const running = echoTool({ stoppedResult, call: () => (queueMicrotask(() => controller.abort()), new Promise<string>(() => undefined)) });
    const interrupted = await run(use('Read', { path: 'a' }), [running], { signal: controller.signal });
    expect(interrupted.text).toBe('The call to `Read` was cancelled before it finished.');
    expect(interrupted.result.structured).toEqual({ how: 'interrupted' });

    const before = new AbortController();
    before.abort();
    const notStarted = await run(use('Read', { path: 'a' }), [echoTool({ stoppedResult })], { signal: before.signal });
    expect(notStarted.result.result.is_error).toBe(true);
    expect(notStarted.result).not.toHaveProperty('structured');
  });
});
