/**
 * What the context governor reports besides its decision reaches consumers: notices become
 * `compact_boundary` / `warning` events before the decision is acted on, and a failed reactive
 * compaction ends `prompt_too_long` with the governor's explanation. In-process model.
 */
import { describe, expect, it } from 'vitest';
import { of } from 'rxjs';
import type { AgentLoopOptions } from '../../src/loop/options.js';
import type { ContextGovernor, GovernorDecision, GovernorNotice, ReactiveCompactResult } from '../../src/loop/seams.js';
import type { LoopEvent } from '../../src/loop/types.js';
import { ApiError } from '../../src/errors.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { MessageParam } from '../../src/protocol/content.js';
import { message, runSync, text, toolUse, type FakeStep } from './helpers.js';

const run = (script: (n: number, request: MessagesRequest) => FakeStep, options: Partial<AgentLoopOptions> = {}) =>
  runSync(script, options, { collectRecords: true });

const SNIP: GovernorNotice = { type: 'compact_boundary', boundary: { trigger: 'snip', preTokens: 900, postTokens: 600 } };
const MICRO: GovernorNotice = { type: 'compact_boundary', boundary: { trigger: 'microcompact', preTokens: 600, postTokens: 400 } };
const FAILED: GovernorNotice = { type: 'warning', code: 'autocompact_failed', message: 'Automatic compaction failed (3 in a row): boom' };
const DISABLED: GovernorNotice = { type: 'warning', code: 'autocompact_disabled', message: 'Automatic compaction will not be tried again.' };

/** The events between an iteration's start and its first model event, as short labels. */
function labels(events: readonly LoopEvent[]): string[] {
  return events.flatMap((e) => {
    if (e.type === 'compact_boundary') return [`boundary:${e.trigger}`];
    if (e.type === 'warning') return [`warning:${e.code ?? ''}`];
    if (e.type === 'iteration_start') return ['start'];
    if (e.type === 'model' && e.event.type === 'message_start') return ['model'];
    if (e.type === 'terminal') return [`terminal:${e.reason}`];
    return [];
  });
}

function governor(
  decide: (n: number, messages: readonly MessageParam[]) => GovernorDecision,
  reactive?: () => ReactiveCompactResult,
): ContextGovernor {
  let n = 0;
  return {
    beforeCall: (input) => of(decide(n++, input.messages)),
    reactiveCompact: () => of(reactive ? reactive() : { type: 'failed', message: 'no' }),
  };
}

describe('governor notices become loop events', () => {
  it("an 'ok' decision's boundaries and warnings come out in order, before the model call", async () => {
    const g: ContextGovernor = {
      beforeCall: (input) => of({ type: 'ok', messages: input.messages, notices: [SNIP, MICRO, FAILED, DISABLED] }),
      reactiveCompact: () => of({ type: 'failed', message: 'no' }),
    };
    const r = await run(() => message([text('done')]), { contextGovernor: g });
    expect(r.terminal.reason).toBe('completed');
    expect(labels(r.events)).toEqual([
      'start',
      'boundary:snip',
      'boundary:microcompact',
      'warning:autocompact_failed',
      'warning:autocompact_disabled',
      'model',
      'terminal:completed',
    ]);
    expect(r.events.find((e) => e.type === 'compact_boundary')).toMatchObject({ trigger: 'snip', preTokens: 900, postTokens: 600 });
    expect(r.events.find((e) => e.type === 'warning')).toMatchObject({ message: FAILED.type === 'warning' ? FAILED.message : '' });
    // The cheap layers' views are derived again from the full history: no transcript boundary.
    expect(r.records.filter((x) => x.type === 'compact_boundary')).toEqual([]);
  });

  it("a 'compacted' decision's notices come before its own boundary, which alone is recorded", async () => {
    const summary = [{ role: 'user' as const, content: 'summary' }];
    const g = governor((n, messages) =>
      n === 1
        ? { type: 'compacted', messages: summary, boundary: { trigger: 'auto', preTokens: 500, postTokens: 50 }, notices: [SNIP] }
        : { type: 'ok', messages },
    );
    const r = await run((n) => (n === 0 ? message([toolUse('echo', { x: 'a' })]) : message([text('done')])), { contextGovernor: g });
    expect(r.terminal.reason).toBe('completed');
    expect(labels(r.events)).toEqual(['start', 'model', 'start', 'boundary:snip', 'boundary:auto', 'model', 'terminal:completed']);
    expect(r.records.filter((x) => x.type === 'compact_boundary')).toMatchObject([{ boundary: { trigger: 'auto' }, messages: summary }]);
  });

  it('the breaker warnings come before a blocking_limit terminal (no request)', async () => {
    const g = governor(() => ({ type: 'blocking_limit', message: 'over the line', notices: [FAILED, DISABLED] }));
    const r = await run(() => message([text('never')]), { contextGovernor: g });
    expect(r.requests).toHaveLength(0);
    expect(labels(r.events)).toEqual(['start', 'warning:autocompact_failed', 'warning:autocompact_disabled', 'terminal:blocking_limit']);
    expect(r.terminal.error?.message).toBe('over the line');
  });

  it('a rapid refill terminal also carries the notices before it', async () => {
    const g = governor(() => ({ type: 'rapid_refill_breaker', message: 'refilled', notices: [MICRO] }));
    const r = await run(() => message([text('never')]), { contextGovernor: g });
    expect(labels(r.events)).toEqual(['start', 'boundary:microcompact', 'terminal:rapid_refill_breaker']);
  });
});

describe('reactive compaction: notices and the failure explanation', () => {
  const tooLong = new ApiError(413, 'request_too_large', 'prompt is too long: 250000 tokens > 200000 maximum', false);

  it('a successful reactive compaction emits its notices before its boundary', async () => {
    const g = governor(
      (_n, messages) => ({ type: 'ok', messages }),
      () => ({
        type: 'compacted',
        messages: [{ role: 'user', content: 'summary' }],
        boundary: { trigger: 'reactive', preTokens: 9_000, postTokens: 100 },
        notices: [SNIP],
      }),
    );
    const r = await run((n) => (n === 0 ? { kind: 'error', error: tooLong } : message([text('done')])), { contextGovernor: g });
    expect(r.terminal.reason).toBe('completed');
    expect(labels(r.events)).toEqual(['start', 'boundary:snip', 'boundary:reactive', 'start', 'model', 'terminal:completed']);
  });

  it("a failed reactive compaction ends prompt_too_long with the governor's explanation, the API's status kept", async () => {
    const why = 'The prompt is too long for the model (prompt is too long: 250000 tokens > 200000 maximum). Compaction could not help: the conversation is too short to compact.';
    const g = governor(
      (_n, messages) => ({ type: 'ok', messages }),
      () => ({ type: 'failed', message: why, notices: [FAILED] }),
    );
    const r = await run(() => ({ kind: 'error', error: tooLong }), { contextGovernor: g });
    expect(r.requests).toHaveLength(1);
    expect(r.terminal.reason).toBe('prompt_too_long');
    expect(r.terminal.error).toEqual({ kind: 'api', status: 413, errorType: 'request_too_large', message: why });
    expect(labels(r.events)).toEqual(['start', 'warning:autocompact_failed', 'terminal:prompt_too_long']);
  });

  it('an explanation that does not repeat the API message gets it in front', async () => {
    const r = await run(() => ({ kind: 'error', error: tooLong }));
    expect(r.terminal.reason).toBe('prompt_too_long');
    expect(r.terminal.error?.status).toBe(413);
    expect(r.terminal.error?.message).toBe(
      'prompt is too long: 250000 tokens > 200000 maximum. No context governor is configured, so the conversation could not be compacted.',
    );
  });

  it('a second prompt-too-long in the same turn says the turn was already compacted', async () => {
    const g = governor(
      (_n, messages) => ({ type: 'ok', messages }),
      () => ({ type: 'compacted', messages: [{ role: 'user', content: 'summary' }], boundary: { trigger: 'reactive', preTokens: 9_000, postTokens: 100 } }),
    );
    const r = await run(() => ({ kind: 'error', error: tooLong }), { contextGovernor: g });
    expect(r.requests).toHaveLength(2);
    expect(r.terminal.reason).toBe('prompt_too_long');
    expect(r.terminal.error?.message).toMatch(/^prompt is too long: 250000 tokens > 200000 maximum\. .*already compacted once in this turn/);
  });
});
