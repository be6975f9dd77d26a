/**
 * The agent tree's subagent caps (issue 15): at most `maxConcurrent` subagents running at once
 * and `maxPerRun` started in one run, counted over the WHOLE tree (grandchildren too), so a
 * model fanning out 30 background calls per response cannot grow the tree geometrically.
 *
 * `stepSlots` is the pure reducer; `createSubagentSlots` is the one mutable holder, shared by
 * every node of a tree (the root creates it, children are handed the same one). An Agent call
 * over a cap is refused with a {@link SubagentLimitError} (its call ends in an error result);
 * nothing waits for a slot, so a cap can never deadlock a parent waiting on its children.
 */
import { ConfigurationError, SubagentLimitError, type SubagentLimit } from '../errors.js';
import { assertNever } from '../util/assertNever.js';

export const DEFAULT_MAX_CONCURRENT_SUBAGENTS = 10;
export const DEFAULT_MAX_SUBAGENTS_PER_RUN = 50;

export interface SlotLimits {
  readonly maxConcurrent: number;
  readonly maxPerRun: number;
}

export interface SlotState {
  readonly limits: SlotLimits;
  /** Subagents running now. */
  readonly running: number;
  /** Subagents started in this run (a refused call does not count). */
  readonly started: number;
}

export type SlotAction = { readonly type: 'acquire' } | { readonly type: 'release' };

export interface SlotStep {
  readonly state: SlotState;
  /** For `acquire`: undefined when granted, else the cap that refused it. */
  readonly refused?: SubagentLimit;
}

export function initialSlots(limits: SlotLimits): SlotState {
  return { limits, running: 0, started: 0 };
}

export function stepSlots(state: SlotState, action: SlotAction): SlotStep {
  switch (action.type) {
    case 'acquire':
      // The per-run cap is checked first: it is final, so it is the more useful thing to say.
      if (state.started >= state.limits.maxPerRun) return { state, refused: 'per_run' };
      if (state.running >= state.limits.maxConcurrent) return { state, refused: 'concurrent' };
      return { state: { ...state, running: state.running + 1, started: state.started + 1 } };
    case 'release':
      return { state: { ...state, running: Math.max(0, state.running - 1) } };
    default:
      return assertNever(action);
  }
}

/** A granted slot: `release()` frees it (idempotent, so every way a child ends may call it). */
export interface SubagentSlot {
  release(): void;
}

export interface SubagentSlots {
  /** A slot, or the typed error saying which cap refused it. */
  acquire(): SubagentSlot | SubagentLimitError;
  /** The counters now (for tests and diagnostics). */
  readonly state: () => SlotState;
}

export function createSubagentSlots(limits: Partial<SlotLimits> = {}): SubagentSlots {
  let state = initialSlots({
    maxConcurrent: checkedLimit('maxConcurrent', limits.maxConcurrent ?? DEFAULT_MAX_CONCURRENT_SUBAGENTS),
    maxPerRun: checkedLimit('maxPerRun', limits.maxPerRun ?? DEFAULT_MAX_SUBAGENTS_PER_RUN),
  });
  return {
    acquire() {
      const step = stepSlots(state, { type: 'acquire' });
      state = step.state;
      if (step.refused) return new SubagentLimitError(step.refused, step.refused === 'per_run' ? state.limits.maxPerRun : state.limits.maxConcurrent);
      let held = true;
      return {
        release() {
          if (!held) return;
          held = false;
          state = stepSlots(state, { type: 'release' }).state;
        },
      };
    },
    state: () => state,
  };
}

function checkedLimit(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 0) throw new ConfigurationError(`agents.${name} must be a whole number >= 0, got ${value}`);
  return value;
}
