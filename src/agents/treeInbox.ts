/**
 * The agent tree's own input state, as a pure reducer (`stepTree`) under one holder per tree
 * node (`createTreeInbox`). Everything a node must remember between its phases lives here:
 *
 * - background children's notifications not yet in a phase's history (`notices`), and how many
 *   children still run (`running`): together they decide whether the tree waits after the
 *   root's turn completed;
 * - user commands submitted while no phase could take them (`waiting`, e.g. while the tree waits
 *   for a child), which start the next phase;
 * - commands a phase discarded at its end (`held`): not lost while the tree goes on, the next
 *   phase takes them;
 * - `closed` once the tree's terminal is decided: later submissions are refused.
 *
 * The running phase's own queue is its loop's (`RunInput`, treePhase.ts); this state only says what
 * the tree hands it and what it hides from the consumer (its notifications' lifecycle events
 * are plumbing). Immutable steps: actions are rare (a submission, a child's end, a phase's end),
 * so copying is cheap, and a test can table them.
 */
import type { QueuedCommand } from '../loop/runInput.js';
import type { CommandStatus, TerminalEvent } from '../loop/types.js';
import { assertNever } from '../util/assertNever.js';

/** A background child's notification, as the parent loop queues it. */
export interface Notice {
  readonly id: string;
  readonly text: string;
}

export interface TreeInbox {
  /** The node's chain id: notification ids are made from it. */
  readonly chainId: string;
  readonly closed: boolean;
  readonly noticeCount: number;
  /** Every notification id made so far: their lifecycle events are hidden. */
  readonly noticeIds: ReadonlySet<string>;
  /** Notifications not yet absorbed by a phase, in completion order. */
  readonly notices: readonly Notice[];
  /** Background children still running. */
  readonly running: number;
  /** User commands waiting for the next phase. */
  readonly waiting: readonly QueuedCommand[];
  /** User commands not yet absorbed, by id: a phase that discards one may hand it on. */
  readonly unabsorbed: ReadonlyMap<string, QueuedCommand>;
  /** Discarded by the phase that just ended; carried into the next phase if there is one. */
  readonly held: readonly QueuedCommand[];
}

export type TreeAction =
  /** A submission reached the tree (refused once closed). */
  | { readonly type: 'submit'; readonly command: QueuedCommand }
  /** A submitted command no phase could take: it waits for the next phase. */
  | { readonly type: 'wait'; readonly command: QueuedCommand }
  | { readonly type: 'launch' }
  /** A background child ended; `text` is its notification (none when it was cut). */
  | { readonly type: 'settle'; readonly text?: string }
  /** A `command_lifecycle` event of the running phase. */
  | { readonly type: 'lifecycle'; readonly id: string; readonly status: CommandStatus }
  /** The phase ended and the tree waits: what it discarded waits for the next one. */
  | { readonly type: 'hand_on' }
  /**
   * What a phase starts with. `queue`: the first phase gets the waiting commands in its queue
   * (it reports their lifecycle). `prompt`: a later phase carries notices and commands in its
   * prompt (started by it).
   */
  | { readonly type: 'take'; readonly into: 'queue' | 'prompt' }
  /** The tree's terminal is decided: input closes; what is left is discarded. */
  | { readonly type: 'close' };

export interface TreeStep {
  readonly state: TreeInbox;
  /** `submit`: false once the tree's input closed. */
  readonly accepted: boolean;
  /** `lifecycle`: the event is the tree's own plumbing, kept from the consumer. */
  readonly hidden: boolean;
  /** `settle`: the notification made for the child's text. */
  readonly notice?: Notice;
  /** `take`: the notifications taken. */
  readonly notices: readonly Notice[];
  /** `take`: the commands taken; `close`: the commands left over (discarded). */
  readonly commands: readonly QueuedCommand[];
}

export function initialTreeInbox(chainId: string): TreeInbox {
  return { chainId, closed: false, noticeCount: 0, noticeIds: new Set(), notices: [], running: 0, waiting: [], unabsorbed: new Map(), held: [] };
}

const NOTHING = { accepted: false, hidden: false, notices: [], commands: [] } as const;

export function stepTree(state: TreeInbox, action: TreeAction): TreeStep {
  switch (action.type) {
    case 'submit': {
      if (state.closed) return { ...NOTHING, state };
      return { ...NOTHING, accepted: true, state: { ...state, unabsorbed: new Map(state.unabsorbed).set(action.command.id, action.command) } };
    }
    case 'wait':
      return { ...NOTHING, state: { ...state, waiting: [...state.waiting, action.command] } };
    case 'launch':
      return { ...NOTHING, state: { ...state, running: state.running + 1 } };
    case 'settle': {
      const running = Math.max(0, state.running - 1);
      if (action.text === undefined) return { ...NOTHING, state: { ...state, running } };
      const noticeCount = state.noticeCount + 1;
      const notice: Notice = { id: `${state.chainId}:notification-${noticeCount}`, text: action.text };
      return {
        ...NOTHING,
        notice,
        state: { ...state, running, noticeCount, noticeIds: new Set(state.noticeIds).add(notice.id), notices: [...state.notices, notice] },
      };
    }
    case 'lifecycle':
      return lifecycle(state, action.id, action.status);
    case 'hand_on':
      return { ...NOTHING, state: { ...state, waiting: [...state.held, ...state.waiting], held: [] } };
    case 'take': {
      if (action.into === 'queue') return { ...NOTHING, commands: state.waiting, state: { ...state, waiting: [] } };
      // Carried in the prompt, they are started by it: no longer the tree's to hand on.
      const unabsorbed = new Map(state.unabsorbed);
      for (const c of state.waiting) unabsorbed.delete(c.id);
      return { ...NOTHING, notices: state.notices, commands: state.waiting, state: { ...state, notices: [], waiting: [], unabsorbed } };
    }
    case 'close':
      return { ...NOTHING, commands: [...state.held, ...state.waiting], state: { ...state, closed: true, held: [], waiting: [] } };
    default:
      return assertNever(action, 'tree action');
  }
}

function lifecycle(state: TreeInbox, id: string, status: CommandStatus): TreeStep {
  if (state.noticeIds.has(id)) {
    // A notification entering the history is seen as its user_message; its `started` means
    // it is delivered. Every other status of it is plumbing too.
    const notices = status === 'started' ? state.notices.filter((n) => n.id !== id) : state.notices;
    return { ...NOTHING, hidden: true, state: notices === state.notices ? state : { ...state, notices } };
  }
  if (status === 'started' && state.unabsorbed.has(id)) {
    const unabsorbed = new Map(state.unabsorbed);
    unabsorbed.delete(id);
    return { ...NOTHING, state: { ...state, unabsorbed } };
  }
  const command = status === 'discarded' ? state.unabsorbed.get(id) : undefined;
  // Not lost yet: if the tree goes on, the next phase takes it (decided at the phase's end).
  if (command) return { ...NOTHING, hidden: true, state: { ...state, held: [...state.held, command] } };
  return { ...NOTHING, state };
}

/** Whether a phase's notifications or commands are there to start the next phase now. */
export function hasInput(state: TreeInbox): boolean {
  return state.notices.length > 0 || state.waiting.length > 0;
}

/**
 * Whether the tree waits for its background children after a phase ended (rather than ending
 * with that phase's terminal): only a completed turn waits, only while a child runs or its
 * notification is undelivered, and only with turns left and no abort.
 */
export function shouldWait(
  state: TreeInbox,
  end: { readonly reason: TerminalEvent['reason']; readonly turns: number },
  config: { readonly waitForBackground: boolean; readonly maxTurns: number | undefined; readonly aborted: boolean },
): boolean {
  return (
    config.waitForBackground &&
    end.reason === 'completed' &&
    (state.running > 0 || state.notices.length > 0) &&
    (config.maxTurns === undefined || end.turns < config.maxTurns) &&
    !config.aborted
  );
}

/** The one mutable holder of a tree node's inbox; each action is applied at once. */
export interface TreeInboxHolder {
  dispatch(action: TreeAction): TreeStep;
  state(): TreeInbox;
}

export function createTreeInbox(chainId: string): TreeInboxHolder {
  let state = initialTreeInbox(chainId);
  return {
    dispatch(action) {
      const step = stepTree(state, action);
      state = step.state;
      return step;
    },
    state: () => state,
  };
}
