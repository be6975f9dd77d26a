/**
 * reduceCommands, the pure decision under the command session: what each UI command does when
 * idle and while a turn runs, what happens to a prompt the turn did not take, and at a turn's end.
 */
import { describe, expect, it } from 'vitest';
import { IDLE, reduceCommands, type CommandAction, type CommandState, type QueuedPrompt } from '../../src/ui/commands.js';

const p = (input: string): QueuedPrompt => ({ type: 'prompt', input });
const running = (...waiting: QueuedPrompt[]): CommandState => ({ running: true, waiting });
const command = (c: CommandAction & { type: 'command' }) => c;

describe('reduceCommands', () => {
  const table: [string, CommandState, CommandAction, CommandState, unknown[]][] = [
    ['a prompt while idle starts a turn', IDLE, { type: 'command', command: p('a') }, running(), [{ type: 'start_turn', prompt: p('a') }]],
    ['a prompt while running is submitted to the turn', running(), { type: 'command', command: p('b') }, running(), [{ type: 'submit', prompt: p('b') }]],
    ['a prompt behind waiting ones waits too (order kept)', running(p('b')), { type: 'command', command: p('c') }, running(p('b'), p('c')), []],
    ['a prompt the running turn did not take waits for the next turn', running(), { type: 'not_taken', prompt: p('b') }, running(p('b')), []],
    ['a prompt not taken after the turn ended starts one', IDLE, { type: 'not_taken', prompt: p('b') }, running(), [{ type: 'start_turn', prompt: p('b') }]],
    ['the end of a turn starts the oldest waiting prompt', running(p('b'), p('c')), { type: 'turn_ended' }, running(p('c')), [{ type: 'start_turn', prompt: p('b') }]],
    ['the end of a turn with nothing waiting is idle', running(), { type: 'turn_ended' }, IDLE, []],
    ['Stop while running aborts and drops what waits', running(p('b')), command({ type: 'command', command: { type: 'stop' } }), running(), [{ type: 'abort' }]],
    ['Stop while idle does nothing', IDLE, { type: 'command', command: { type: 'stop' } }, IDLE, []],
    [
      'a permission answer is passed on as it is, whatever runs',
      IDLE,
      { type: 'command', command: { type: 'permission', requestId: 'perm-1', behavior: 'deny', message: 'no' } },
      IDLE,
      [{ type: 'answer', requestId: 'perm-1', answer: { behavior: 'deny', message: 'no' } }],
    ],
    [
      "an MCP server's question answered is passed on as it is, whatever runs",
      running(),
      { type: 'command', command: { type: 'elicitation', requestId: 'elicit-1', action: 'accept', content: { name: 'Ada' } } },
      running(),
      [{ type: 'answer_elicitation', requestId: 'elicit-1', answer: { action: 'accept', content: { name: 'Ada' } } }],
    ],
    ['close while running aborts and drops what waits', running(p('b')), { type: 'close' }, running(), [{ type: 'abort' }]],
    ['close while idle does nothing', IDLE, { type: 'close' }, { running: false, waiting: [] }, []],
  ];
  it.each(table)('%s', (_name, state, action, nextState, effects) => {
    const next = reduceCommands(state, action);
    expect(next.state).toEqual(nextState);
    expect(next.effects).toEqual(effects);
  });

  it('is pure: the state it was given is not changed', () => {
    const state = running(p('b'));
    const frozen = Object.freeze({ ...state, waiting: Object.freeze([...state.waiting]) });
    expect(() => reduceCommands(frozen, { type: 'command', command: p('c') })).not.toThrow();
    expect(frozen.waiting).toEqual([p('b')]);
  });
});
