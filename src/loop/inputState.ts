/**
 * The input side of one run as a pure reducer (SPEC §9): what was submitted and waits, what was
 * absorbed and waits for its turn to end, whether the iteration may be interrupted, and whether
 * the input has closed (the terminal is being delivered). `runInput.ts` runs it as a `scan`
 * over the run's submissions and the loop's own actions.
 *
 * ```
 * submit  -> queued                 (refused once closed: accepted false, nothing recorded)
 * absorb  -> started                (the queue joins the next user message)
 * close   -> completed | cancelled  (absorbed ones, by how the run ended), discarded (still queued)
 * ```
 */
import { assertNever } from '../util/assertNever.js';
import type { TextBlock } from '../protocol/content.js';
import type { CommandStatus } from './types.js';

export interface QueuedCommand {
  readonly id: string;
  readonly content: readonly TextBlock[];
  readonly interrupt: boolean;
}

export interface StartedCommand {
  readonly id: string;
  /** Whether a request carried it. */
  readonly seen: boolean;
}

export interface InputState {
  readonly queue: readonly QueuedCommand[];
  readonly started: readonly StartedCommand[];
  /** Kept up to date by the tool scheduler of the current iteration. */
  readonly interruptible: boolean;
  readonly closed: boolean;
}

export type InputAction =
  /** User input: queued (and reported), or refused once the input closed. */
  | { readonly type: 'submit'; readonly command: QueuedCommand }
  /** Plumbing of the agent tree (a child's notification): queued without a report of its own. */
  | { readonly type: 'notify'; readonly command: QueuedCommand }
  /** Commands a run starts with in its prompt: started at once, not yet seen. */
  | { readonly type: 'adopt'; readonly ids: readonly string[] }
  /** The iteration takes the whole queue into the next user message. */
  | { readonly type: 'absorb' }
  /** A request is about to carry the absorbed commands. */
  | { readonly type: 'seen' }
  | { readonly type: 'interruptible'; readonly value: boolean }
  /** The terminal is on its way: settle everything, refuse what comes later. */
  | { readonly type: 'close'; readonly ok: boolean };

export interface LifecycleChange {
  readonly id: string;
  readonly status: CommandStatus;
  readonly seenByModel?: boolean;
}

export interface InputStep {
  readonly state: InputState;
  /** The lifecycle steps this action caused, in order. */
  readonly changes: readonly LifecycleChange[];
  /** For `submit`: whether it was taken. */
  readonly accepted: boolean;
  /** For `submit`: the iteration must be cut now (an interrupting submission while it may be). */
  readonly interrupt: boolean;
  /** For `absorb`: the commands taken, in order. */
  readonly absorbed: readonly QueuedCommand[];
}

export const INITIAL_INPUT: InputState = { queue: [], started: [], interruptible: true, closed: false };

/**
 * A new input state as one literal, not `{ ...state, x }`: the interruptible flag flips as tools
 * start and end, every iteration that runs one, and the spread is a slow copy on Node 20.
 */
function inputState(queue: InputState['queue'], started: InputState['started'], interruptible: boolean, closed: boolean): InputState {
  return { queue, started, interruptible, closed } satisfies Record<keyof InputState, unknown>;
}

const step = (state: InputState, extra: Partial<Omit<InputStep, 'state'>> = {}): InputStep => ({
  state,
  changes: extra.changes ?? [],
  accepted: extra.accepted ?? false,
  interrupt: extra.interrupt ?? false,
  absorbed: extra.absorbed ?? [],
});

export function stepInput(state: InputState, action: InputAction): InputStep {
  switch (action.type) {
    case 'submit': {
      if (state.closed) return step(state);
      const { command } = action;
      return step(
        inputState([...state.queue, command], state.started, state.interruptible, state.closed),
        { accepted: true, changes: [{ id: command.id, status: 'queued' }], interrupt: command.interrupt && state.interruptible },
      );
    }
    case 'notify':
      return step(inputState([...state.queue, action.command], state.started, state.interruptible, state.closed), { accepted: true });
    case 'adopt':
      return step(inputState(state.queue, [...state.started, ...action.ids.map((id) => ({ id, seen: false }))], state.interruptible, state.closed));
    case 'absorb': {
      if (state.queue.length === 0) return step(state);
      const absorbed = state.queue;
      return step(
        inputState([], [...state.started, ...absorbed.map((c) => ({ id: c.id, seen: false }))], state.interruptible, state.closed),
        { absorbed, changes: absorbed.map((c) => ({ id: c.id, status: 'started' as const })) },
      );
    }
    case 'seen':
      return step(state.started.every((c) => c.seen) ? state : inputState(state.queue, state.started.map((c) => ({ id: c.id, seen: true })), state.interruptible, state.closed));
    case 'interruptible':
      return step(state.interruptible === action.value ? state : inputState(state.queue, state.started, action.value, state.closed));
    case 'close': {
      if (state.closed) return step(state);
      const status: CommandStatus = action.ok ? 'completed' : 'cancelled';
      const changes: LifecycleChange[] = [
        ...state.started.map((c) => ({ id: c.id, status, seenByModel: c.seen })),
        ...state.queue.map((c) => ({ id: c.id, status: 'discarded' as const })),
      ];
      return step(inputState([], [], state.interruptible, true), { changes });
    }
    default:
      return assertNever(action, 'input action');
  }
}
