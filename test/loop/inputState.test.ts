/** The pure reducer of a run's input (SPEC §9), under the scan of runInput.ts. */
import { describe, expect, it } from 'vitest';
import { INITIAL_INPUT, stepInput, type InputAction, type InputState, type InputStep, type QueuedCommand } from '../../src/loop/inputState.js';

const cmd = (id: string, interrupt = false): QueuedCommand => ({ id, content: [{ type: 'text', text: id }], interrupt });
const run = (actions: readonly InputAction[], from: InputState = INITIAL_INPUT): InputStep[] => {
  const steps: InputStep[] = [];
  let state = from;
  for (const action of actions) {
    const step = stepInput(state, action);
    steps.push(step);
    state = step.state;
  }
  return steps;
};

describe('stepInput', () => {
  it('submit queues and reports queued; absorb takes the queue in order and reports started', () => {
    const steps = run([{ type: 'submit', command: cmd('a') }, { type: 'submit', command: cmd('b') }, { type: 'absorb' }]);
    expect(steps.map((s) => s.accepted)).toEqual([true, true, false]);
    expect(steps[0]!.changes).toEqual([{ id: 'a', status: 'queued' }]);
    expect(steps[2]!.absorbed.map((c) => c.id)).toEqual(['a', 'b']);
    expect(steps[2]!.changes).toEqual([{ id: 'a', status: 'started' }, { id: 'b', status: 'started' }]);
    expect(steps[2]!.state).toMatchObject({ queue: [], started: [{ id: 'a', seen: false }, { id: 'b', seen: false }] });
  });

  it('an empty absorb changes nothing (the same state object)', () => {
    expect(stepInput(INITIAL_INPUT, { type: 'absorb' }).state).toBe(INITIAL_INPUT);
  });

  it('an interrupting submission interrupts only while the iteration is interruptible', () => {
    expect(stepInput(INITIAL_INPUT, { type: 'submit', command: cmd('i', true) }).interrupt).toBe(true);
    const [, blocked] = run([{ type: 'interruptible', value: false }, { type: 'submit', command: cmd('i', true) }]);
    expect(blocked).toMatchObject({ accepted: true, interrupt: false });
    expect(stepInput(INITIAL_INPUT, { type: 'submit', command: cmd('p') }).interrupt).toBe(false);
  });

  it('close settles absorbed commands by the ending (with seenByModel) and discards the queue; later input is refused', () => {
    const steps = run([
      { type: 'submit', command: cmd('a') },
      { type: 'absorb' },
      { type: 'seen' },
      { type: 'submit', command: cmd('b') },
      { type: 'absorb' },
      { type: 'submit', command: cmd('c') },
      { type: 'close', ok: true },
      { type: 'submit', command: cmd('d') },
      { type: 'close', ok: false },
    ]);
    expect(steps[6]!.changes).toEqual([
      { id: 'a', status: 'completed', seenByModel: true },
      { id: 'b', status: 'completed', seenByModel: false },
      { id: 'c', status: 'discarded' },
    ]);
    expect(steps[7]).toMatchObject({ accepted: false, changes: [] });
    expect(steps[7]!.state.queue).toEqual([]);
    expect(steps[8]!.changes).toEqual([]);
  });

  it('a failed ending cancels what was absorbed', () => {
    const steps = run([{ type: 'submit', command: cmd('a') }, { type: 'absorb' }, { type: 'close', ok: false }]);
    expect(steps[2]!.changes).toEqual([{ id: 'a', status: 'cancelled', seenByModel: false }]);
  });

  it("the tree's plumbing: notify queues without a report, adopt starts what a prompt carries", () => {
    const steps = run([{ type: 'notify', command: cmd('n') }, { type: 'adopt', ids: ['p'] }, { type: 'absorb' }, { type: 'close', ok: true }]);
    expect(steps[0]!.changes).toEqual([]);
    expect(steps[1]!.state.started).toEqual([{ id: 'p', seen: false }]);
    expect(steps[2]!.changes).toEqual([{ id: 'n', status: 'started' }]);
    expect(steps[3]!.changes.map((c) => c.id)).toEqual(['p', 'n']);
  });

  it('never changes the state it is given', () => {
    const state: InputState = { queue: [cmd('a')], started: [{ id: 'b', seen: false }], interruptible: true, closed: false };
    const copy = JSON.parse(JSON.stringify(state));
    for (const action of [{ type: 'absorb' }, { type: 'seen' }, { type: 'close', ok: true }, { type: 'submit', command: cmd('x') }] as const) stepInput(state, action);
    expect(state).toEqual(copy);
  });
});
