/**
 * `liveUsage(view)`: token counters that move while a response streams, over real loop runs (the
 * loop with a fake model behind its callModel seam): input known from `message_start`, output
 * estimated from the characters streamed until `message_delta` reports the real count, and the
 * terminal's totals once the run ends.
 */
import { describe, expect, it } from 'vitest';
import { liveCost, liveUsage } from '../../src/ui/selectors.js';
import { costOf, priceFor } from '../../src/loop/pricing.js';
import type { ViewEvent } from '../../src/ui/types.js';
import { concat, from, lastValueFrom, toArray } from 'rxjs';
import { agentLoop } from '../../src/loop/agentLoop.js';
import type { CallModel } from '../../src/loop/options.js';
import type { TransportOutput } from '../../src/transport/types.js';
import { echoTool, eventsOf, message, runSync, text, toolUse } from '../loop/helpers.js';
import { foldViews, indexOf } from './helpers.js';

const modelEvent = (type: string) => (e: ViewEvent) => e.type === 'model' && e.event.type === type;

describe('liveUsage', () => {
  it('counts the input at message_start, estimates the output per delta, then takes the API count', async () => {
    const answer = 'The quick brown fox jumps over the lazy dog.'; // 44 characters
    const run = await runSync(() =>
      message([{ type: 'text', text: answer, chunkSize: 8 }], { usage: { input_tokens: 120, output_tokens: 7, cache_read_input_tokens: 30 } }),
    );
    const views = foldViews(run.events);
    const started = views[indexOf(run.events, modelEvent('message_start'))]!;
    expect(liveUsage(started)).toEqual({ inputTokens: 150, outputTokens: 1, estimated: true });
    // After each delta: ceil(characters so far / 4), never below what the start reported.
    const deltas = run.events.flatMap((e, i) => (modelEvent('text_delta')(e) ? [i] : []));
    expect(deltas.map((i) => liveUsage(views[i]!).outputTokens)).toEqual([2, 4, 6, 8, 10, 11]);
    expect(liveUsage(views[deltas[2]!]!).estimated).toBe(true);
    const reported = views[indexOf(run.events, modelEvent('message_delta'))]!;
    expect(liveUsage(reported)).toEqual({ inputTokens: 150, outputTokens: 7, estimated: false });
    // Ended: the terminal's totals, nothing in flight.
    const end = views.at(-1)!;
    const u = run.terminal.usage;
    expect(liveUsage(end)).toEqual({ inputTokens: u.inputTokens + u.cacheReadInputTokens + u.cacheCreationInputTokens, outputTokens: u.outputTokens, estimated: false });
    expect(u.outputTokens).toBe(7);
  });

  it('over several responses: the completed ones plus the one streaming, and tool input counts as output', async () => {
    const run = await runSync(
      (i) =>
        i === 0
          ? message([toolUse('echo', { text: 'abcdefgh' }, 'toolu_1')], { usage: { input_tokens: 10, output_tokens: 5 } })
          : message([text('done')], { usage: { input_tokens: 40, output_tokens: 2 } }),
      { tools: [echoTool] },
    );
    const views = foldViews(run.events);
    const toolInput = views[indexOf(run.events, modelEvent('tool_input_delta'))]!;
    expect(liveUsage(toolInput)).toMatchObject({ inputTokens: 10, estimated: true });
    expect(liveUsage(toolInput).outputTokens).toBeGreaterThan(1);
    const starts = run.events.flatMap((e, i) => (modelEvent('message_start')(e) ? [i] : []));
    // The second response started: the first one's real counts plus the second's input.
    expect(liveUsage(views[starts[1]!]!)).toEqual({ inputTokens: 50, outputTokens: 5 + 1, estimated: true });
    expect(liveUsage(views.at(-1)!)).toEqual({ inputTokens: 50, outputTokens: 7, estimated: false });
  });

  it('a retried stream does not count the discarded attempt', async () => {
    // The transport's own retry: the first attempt's start and a delta, then stream_retry.
    const partial = eventsOf(message([text('partial answer')], { usage: { input_tokens: 10, output_tokens: 9 } }), 0).slice(0, 4);
    const full = eventsOf(message([text('whole')], { usage: { input_tokens: 10, output_tokens: 2 } }), 1);
    const retry: TransportOutput = { type: 'stream_retry', attempt: 1, maxRetries: 2, delayMs: 0, status: undefined, errorType: 'connection', message: 'reset' };
    const callModel: CallModel = () => concat(from(partial), from([retry]), from(full));
    const events = await lastValueFrom(agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', deps: { callModel } }).pipe(toArray()));
    const views = foldViews(events);
    const r = indexOf(events, (e) => e.type === 'stream_retry');
    expect(liveUsage(views[r - 1]!)).toMatchObject({ inputTokens: 10, estimated: true });
    expect(liveUsage(views[r]!)).toEqual({ inputTokens: 0, outputTokens: 0, estimated: false });
    expect(liveUsage(views.at(-1)!)).toEqual({ inputTokens: 10, outputTokens: 2, estimated: false });
  });

  describe('liveCost', () => {
    const price = priceFor('claude-sonnet-4-5')!;
    const usd = (input: number, output: number, cacheRead = 0) => costOf({ input_tokens: input, output_tokens: output, cache_read_input_tokens: cacheRead }, price);

    it('prices the input at message_start and the output at the live counter, then the terminal cost', async () => {
      const answer = 'The quick brown fox jumps over the lazy dog.';
      const run = await runSync(() =>
        message([{ type: 'text', text: answer, chunkSize: 8 }], { usage: { input_tokens: 120, output_tokens: 7, cache_read_input_tokens: 30 } }),
      );
      const views = foldViews(run.events);
      const started = views[indexOf(run.events, modelEvent('message_start'))]!;
      // The start's own output count (1) is priced too.
      expect(liveCost(started).costUsd).toBeCloseTo(usd(120, 1, 30), 12);
      expect(liveCost(started).estimated).toBe(true);
      const deltas = run.events.flatMap((e, i) => (modelEvent('text_delta')(e) ? [i] : []));
      const costs = deltas.map((i) => liveCost(views[i]!).costUsd);
      [2, 4, 6, 8, 10, 11].forEach((out, i) => expect(costs[i]).toBeCloseTo(usd(120, out, 30), 12));
      // It only grows while the answer streams.
      expect(costs.every((c, i) => i === 0 || c > costs[i - 1]!)).toBe(true);
      const reported = liveCost(views[indexOf(run.events, modelEvent('message_delta'))]!);
      expect(reported.costUsd).toBeCloseTo(usd(120, 7, 30), 12);
      expect(reported.estimated).toBe(false);
      const end = views.at(-1)!;
      expect(liveCost(end)).toEqual({ costUsd: run.terminal.costUsd, estimated: false });
      expect(run.terminal.costUsd).toBeCloseTo(usd(120, 7, 30), 12);
    });

    it('a retried stream retracts the attempt\'s cost with its text, in the stream_retry frame', async () => {
      const partial = eventsOf(message([text('partial answer')], { usage: { input_tokens: 1000, output_tokens: 9 } }), 0).slice(0, 4);
      const full = eventsOf(message([text('whole')], { usage: { input_tokens: 1000, output_tokens: 2 } }), 1);
      const retry: TransportOutput = { type: 'stream_retry', attempt: 1, maxRetries: 2, delayMs: 0, status: undefined, errorType: 'connection', message: 'reset' };
      const callModel: CallModel = () => concat(from(partial), from([retry]), from(full));
      const events = await lastValueFrom(agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', deps: { callModel } }).pipe(toArray()));
      const views = foldViews(events);
      const r = indexOf(events, (e) => e.type === 'stream_retry');
      expect(liveCost(views[r - 1]!).costUsd).toBeGreaterThan(usd(1000, 0));
      expect(liveCost(views[r]!)).toEqual({ costUsd: 0, estimated: false });
      // Counted once: the retried response only.
      expect(liveCost(views.at(-1)!).costUsd).toBeCloseTo(usd(1000, 2), 12);
    });

    it('a model without a price costs nothing live, as at the end', async () => {
      const run = await runSync(() => message([text('hello there')], { model: 'no-such-model-9', usage: { input_tokens: 50, output_tokens: 3 } }), { model: 'no-such-model-9' });
      const views = foldViews(run.events);
      expect(views.map((v) => liveCost(v).costUsd).every((c) => c === 0)).toBe(true);
      expect(run.terminal.costUsd).toBe(0);
    });
  });
});
