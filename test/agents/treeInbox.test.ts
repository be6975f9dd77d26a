/**
 * The agent tree's pure parts: the inbox reducer (what a node remembers between phases), the
 * wait decision, the phases' totals and terminal, and one phase's loop options.
 */
import { describe, expect, it } from 'vitest';
import { createTreeBudget } from '../../src/agents/treeBudget.js';
import { createTreeInbox, hasInput, initialTreeInbox, shouldWait, stepTree, type TreeAction, type TreeInbox } from '../../src/agents/treeInbox.js';
import { phaseLoopOptions, type PhaseStart } from '../../src/agents/treePhase.js';
import { addPhase, NO_TOTALS, treeTerminal } from '../../src/agents/treeTotals.js';
import type { QueuedCommand } from '../../src/loop/runInput.js';
import type { TerminalEvent } from '../../src/loop/types.js';
import { ZERO_USAGE } from '../../src/loop/pricing.js';

const cmd = (id: string, text = id): QueuedCommand => ({ id, content: [{ type: 'text', text }], interrupt: false });
const run = (actions: readonly TreeAction[], from: TreeInbox = initialTreeInbox('chain')): TreeInbox =>
  actions.reduce((state, action) => stepTree(state, action).state, from);

describe('stepTree', () => {
  it('a submission is recorded until the tree closes; after that it is refused', () => {
    const open = stepTree(initialTreeInbox('chain'), { type: 'submit', command: cmd('c1') });
    expect(open.accepted).toBe(true);
    expect([...open.state.unabsorbed.keys()]).toEqual(['c1']);
    const closed = run([{ type: 'close' }]);
    const refused = stepTree(closed, { type: 'submit', command: cmd('c2') });
    expect(refused.accepted).toBe(false);
    expect(refused.state).toBe(closed);
  });

  it('a settled child with a text makes a numbered notification; a cut one only stops counting', () => {
    const launched = run([{ type: 'launch' }, { type: 'launch' }]);
    expect(launched.running).toBe(2);
    const first = stepTree(launched, { type: 'settle', text: 'child 1 done' });
    expect(first.notice).toEqual({ id: 'chain:notification-1', text: 'child 1 done' });
    expect(first.state).toMatchObject({ running: 1, noticeCount: 1, notices: [first.notice] });
    const cut = stepTree(first.state, { type: 'settle' });
    expect(cut.notice).toBeUndefined();
    expect(cut.state).toMatchObject({ running: 0, noticeCount: 1, notices: [first.notice] });
  });

  it("a notification's lifecycle is hidden; its `started` means it was delivered", () => {
    const state = run([{ type: 'launch' }, { type: 'settle', text: 'n1' }]);
    const queued = stepTree(state, { type: 'lifecycle', id: 'chain:notification-1', status: 'queued' });
    expect(queued.hidden).toBe(true);
    expect(queued.state.notices).toHaveLength(1);
    const started = stepTree(queued.state, { type: 'lifecycle', id: 'chain:notification-1', status: 'started' });
    expect(started.hidden).toBe(true);
    expect(started.state.notices).toEqual([]);
    // Still recognised afterwards (its `completed` at the phase's end is plumbing too).
    expect(stepTree(started.state, { type: 'lifecycle', id: 'chain:notification-1', status: 'completed' }).hidden).toBe(true);
  });

  it('a command the phase discards before absorbing it is held (hidden); one it absorbed is not', () => {
    const state = run([
      { type: 'submit', command: cmd('kept') },
      { type: 'submit', command: cmd('absorbed') },
      { type: 'lifecycle', id: 'absorbed', status: 'started' },
    ]);
    const discarded = stepTree(state, { type: 'lifecycle', id: 'kept', status: 'discarded' });
    expect(discarded.hidden).toBe(true);
    expect(discarded.state.held).toEqual([cmd('kept')]);
    const cancelled = stepTree(discarded.state, { type: 'lifecycle', id: 'absorbed', status: 'cancelled' });
    expect(cancelled.hidden).toBe(false);
    expect(cancelled.state.held).toEqual([cmd('kept')]);
    // An id the tree never saw passes through unchanged.
    const foreign = stepTree(cancelled.state, { type: 'lifecycle', id: 'other', status: 'discarded' });
    expect(foreign).toMatchObject({ hidden: false, state: cancelled.state });
  });

  it('hand_on puts the held commands before the waiting ones; take(prompt) hands out notices and commands', () => {
    const state = run([
      { type: 'submit', command: cmd('held') },
      { type: 'lifecycle', id: 'held', status: 'discarded' },
      { type: 'submit', command: cmd('late') },
      { type: 'wait', command: cmd('late') },
      { type: 'launch' },
      { type: 'settle', text: 'n1' },
      { type: 'hand_on' },
    ]);
    expect(state.waiting.map((c) => c.id)).toEqual(['held', 'late']);
    expect(hasInput(state)).toBe(true);
    const taken = stepTree(state, { type: 'take', into: 'prompt' });
    expect(taken.notices.map((n) => n.text)).toEqual(['n1']);
    expect(taken.commands.map((c) => c.id)).toEqual(['held', 'late']);
    // Started by the prompt: no longer the tree's to hold.
    expect(taken.state).toMatchObject({ notices: [], waiting: [], held: [] });
    expect(taken.state.unabsorbed.size).toBe(0);
    expect(hasInput(taken.state)).toBe(false);
  });

  it("take(queue) hands the first phase its early commands and keeps them the tree's until absorbed", () => {
    const state = run([
      { type: 'submit', command: cmd('early') },
      { type: 'wait', command: cmd('early') },
    ]);
    const taken = stepTree(state, { type: 'take', into: 'queue' });
    expect(taken.commands).toEqual([cmd('early')]);
    expect(taken.state.waiting).toEqual([]);
    expect([...taken.state.unabsorbed.keys()]).toEqual(['early']);
  });

  it('close returns what is left (held, then waiting) and closes the input', () => {
    const state = run([
      { type: 'submit', command: cmd('w') },
      { type: 'wait', command: cmd('w') },
      { type: 'submit', command: cmd('h') },
      { type: 'lifecycle', id: 'h', status: 'discarded' },
    ]);
    const closed = stepTree(state, { type: 'close' });
    expect(closed.commands.map((c) => c.id)).toEqual(['h', 'w']);
    expect(closed.state).toMatchObject({ closed: true, held: [], waiting: [] });
  });

  it('an unknown action is an error, not a silent no-op', () => {
    expect(() => stepTree(initialTreeInbox('chain'), { type: 'nope' } as unknown as TreeAction)).toThrow(/unexpected tree action/);
  });

  it('the holder applies each action at once and returns its step', () => {
    const inbox = createTreeInbox('c');
    expect(inbox.dispatch({ type: 'launch' }).state.running).toBe(1);
    expect(inbox.dispatch({ type: 'settle', text: 'x' }).notice?.id).toBe('c:notification-1');
    expect(inbox.state()).toMatchObject({ running: 0, notices: [{ id: 'c:notification-1' }] });
  });
});

describe('shouldWait', () => {
  const running = run([{ type: 'launch' }]);
  const undelivered = run([{ type: 'launch' }, { type: 'settle', text: 'n' }]);
  const idle = initialTreeInbox('chain');
  const config = { waitForBackground: true, maxTurns: undefined, aborted: false };
  const completed = { reason: 'completed' as const, turns: 1 };
  it.each([
    ['a child runs', running, completed, config, true],
    ['a notification is undelivered', undelivered, completed, config, true],
    ['nothing runs or waits', idle, completed, config, false],
    ['waitForBackground is off', running, completed, { ...config, waitForBackground: false }, false],
    ['the turn did not complete', running, { reason: 'max_turns' as const, turns: 1 }, config, false],
    ['no turns are left', running, { reason: 'completed' as const, turns: 3 }, { ...config, maxTurns: 3 }, false],
    ['turns are left', running, { reason: 'completed' as const, turns: 2 }, { ...config, maxTurns: 3 }, true],
    ['the tree was aborted', running, completed, { ...config, aborted: true }, false],
  ])('%s', (_why, state, end, cfg, expected) => {
    expect(shouldWait(state, end, cfg)).toBe(expected);
  });
});

describe('phase totals and the tree terminal', () => {
  const terminal = (over: Partial<TerminalEvent>): TerminalEvent =>
    ({ type: 'terminal', reason: 'completed', turnCount: 2, usage: { ...ZERO_USAGE, inputTokens: 10, outputTokens: 5 }, costUsd: 0.5, durationMs: 3, chainId: 'c', depth: 1, ...over }) as TerminalEvent;

  it('sums turns and usage over phases and keeps the last final text', () => {
    const one = addPhase(NO_TOTALS, terminal({ lastAssistantText: 'first' }));
    const two = addPhase(one, terminal({ turnCount: 1 }));
    expect(two).toMatchObject({ turns: 3, usage: { inputTokens: 20, outputTokens: 10 }, lastText: 'first' });
    expect(addPhase(two, terminal({ lastAssistantText: 'last' })).lastText).toBe('last');
  });

  it("the terminal carries the totals, the node's cost and duration, and an overriding reason", () => {
    const totals = addPhase(addPhase(NO_TOTALS, terminal({ lastAssistantText: 'a' })), terminal({}));
    const t = treeTerminal(terminal({}), totals, { costUsd: 1.25, durationMs: 40 }, 'aborted_tools');
    expect(t).toMatchObject({ type: 'terminal', reason: 'aborted_tools', turnCount: 4, costUsd: 1.25, durationMs: 40, lastAssistantText: 'a' });
    expect(treeTerminal(terminal({}), NO_TOTALS, { costUsd: 0, durationMs: 0 })).not.toHaveProperty('lastAssistantText');
  });
});

describe('phaseLoopOptions', () => {
  const hooks = { userPromptSubmit: () => ({}), stop: () => ({}) };
  const host = {
    options: { model: 'm', prompt: 'go', maxTurns: 5, hooks, parentUuid: 'p', agents: { maxDepth: 1 }, input$: undefined },
    tools: [],
    budget: createTreeBudget(undefined),
    chainId: 'chain',
    signal: new AbortController().signal,
  };
  const start = (over: Partial<PhaseStart>): PhaseStart => ({ type: 'phase_start', first: true, commands: [], totals: NO_TOTALS, ...over });

  it("the first phase keeps the caller's prompt hook and parent; the tree's own options are not the loop's", () => {
    const first = phaseLoopOptions(host, start({ prompt: 'go' }));
    expect(first).toMatchObject({ chainId: 'chain', maxTurns: 5, parentUuid: 'p', prompt: 'go' });
    expect(first.hooks).toHaveProperty('userPromptSubmit');
    expect(first).not.toHaveProperty('agents');
    expect(first).not.toHaveProperty('input$');
  });

  it('a later phase gets the turns left, no prompt hook and no parent uuid', () => {
    const later = phaseLoopOptions(host, start({ first: false, totals: { ...NO_TOTALS, turns: 3 }, messages: [], prompt: 'notice' }));
    expect(later).toMatchObject({ maxTurns: 2, prompt: 'notice', messages: [] });
    expect(later).not.toHaveProperty('parentUuid');
    expect(later.hooks).not.toHaveProperty('userPromptSubmit');
    expect(later.hooks).toHaveProperty('stop');
  });
});
