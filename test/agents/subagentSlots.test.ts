/** The pure reducer under the subagent caps, and its holder. */
import { describe, expect, it } from 'vitest';
import { ConfigurationError, SubagentLimitError } from '../../src/errors.js';
import { createSubagentSlots, initialSlots, stepSlots, type SlotState } from '../../src/agents/subagentSlots.js';

const run = (state: SlotState, actions: readonly ('acquire' | 'release')[]) =>
  actions.reduce<{ state: SlotState; refused: (string | undefined)[] }>(
    (acc, type) => {
      const step = stepSlots(acc.state, { type });
      return { state: step.state, refused: [...acc.refused, step.refused] };
    },
    { state, refused: [] },
  );

describe('stepSlots', () => {
  it('grants up to maxConcurrent, refuses the next, grants again after a release', () => {
    const out = run(initialSlots({ maxConcurrent: 2, maxPerRun: 10 }), ['acquire', 'acquire', 'acquire', 'release', 'acquire']);
    expect(out.refused).toEqual([undefined, undefined, 'concurrent', undefined, undefined]);
    expect(out.state).toMatchObject({ running: 2, started: 3 });
  });

  it('refuses past maxPerRun for good, and says per_run even when also at the concurrent cap', () => {
    const out = run(initialSlots({ maxConcurrent: 1, maxPerRun: 2 }), ['acquire', 'release', 'acquire', 'acquire', 'release', 'acquire']);
    expect(out.refused).toEqual([undefined, undefined, undefined, 'per_run', undefined, 'per_run']);
    expect(out.state).toMatchObject({ running: 0, started: 2 });
  });

  it('a release with nothing running stays at zero; the input state is never changed', () => {
    const start = initialSlots({ maxConcurrent: 1, maxPerRun: 1 });
    expect(stepSlots(start, { type: 'release' }).state.running).toBe(0);
    stepSlots(start, { type: 'acquire' });
    expect(start).toEqual({ limits: { maxConcurrent: 1, maxPerRun: 1 }, running: 0, started: 0 });
  });

  it('caps of 0 refuse every call', () => {
    expect(run(initialSlots({ maxConcurrent: 0, maxPerRun: 5 }), ['acquire']).refused).toEqual(['concurrent']);
    expect(run(initialSlots({ maxConcurrent: 5, maxPerRun: 0 }), ['acquire']).refused).toEqual(['per_run']);
  });
});

describe('createSubagentSlots', () => {
  it('defaults to 10 at once and 50 per run; a refusal is a typed SubagentLimitError', () => {
    const slots = createSubagentSlots();
    const held = Array.from({ length: 10 }, () => slots.acquire());
    expect(held.every((s) => !(s instanceof SubagentLimitError))).toBe(true);
    const refused = slots.acquire();
    expect(refused).toBeInstanceOf(SubagentLimitError);
    expect(refused).toMatchObject({ kind: 'subagent_limit', limit: 'concurrent', max: 10, retryable: true });
    for (const s of held) if (!(s instanceof SubagentLimitError)) s.release();
    for (let i = 0; i < 40; i++) {
      const s = slots.acquire();
      if (s instanceof SubagentLimitError) throw s;
      s.release();
    }
    expect(slots.acquire()).toMatchObject({ limit: 'per_run', max: 50, retryable: false });
  });

  it('release is idempotent: a child ending by two paths frees one slot', () => {
    const slots = createSubagentSlots({ maxConcurrent: 2 });
    const a = slots.acquire();
    slots.acquire();
    if (a instanceof SubagentLimitError) throw a;
    a.release();
    a.release();
    expect(slots.state().running).toBe(1);
  });

  it('rejects a cap that is not a whole number >= 0', () => {
    expect(() => createSubagentSlots({ maxConcurrent: -1 })).toThrow(ConfigurationError);
    expect(() => createSubagentSlots({ maxPerRun: 2.5 })).toThrow(/agents.maxPerRun must be a whole number/);
  });
});
