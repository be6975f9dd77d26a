/**
 * What a UI sends: ONE stream of commands for a whole conversation. A prompt, a permission
 * answer and Stop are all commands; `reduceCommands` (pure) decides what each does given
 * whether a turn runs, and the session (commandSession.ts) carries the effects out.
 *
 * - `prompt` while idle starts a turn; while a turn runs it is submitted to that turn (the loop's
 *   `input$`: queued, absorbed after the current tool batch); one the turn refused or discarded
 *   (it was ending) waits and starts the next turn.
 * - `permission` answers a waiting question (by its `requestId` from `permission_request`).
 * - `elicitation` answers an MCP server's waiting question (`requestId` from `elicitation_request`).
 * - `stop` aborts the running turn (its terminal and transcript are kept; a waiting question is
 *   cancelled with its call) and drops the prompts waiting for the next turn.
 */
import type { MessageParam } from '../protocol/content.js';
import type { McpElicitationAnswer } from '../mcp/elicitation.js';
import type { PermissionAnswer } from '../permissions/createPermissionPolicy.js';
import { assertNever } from '../util/assertNever.js';

export type UiCommand =
  | { readonly type: 'prompt'; readonly input: string | MessageParam; readonly interrupt?: boolean }
  | ({ readonly type: 'permission'; readonly requestId: string } & PermissionAnswer)
  | ({ readonly type: 'elicitation'; readonly requestId: string } & McpElicitationAnswer)
  | { readonly type: 'stop' };

export type QueuedPrompt = Extract<UiCommand, { type: 'prompt' }>;

export interface CommandState {
  readonly running: boolean;
  /** Prompts waiting for the next turn, oldest first. */
  readonly waiting: readonly QueuedPrompt[];
}

export type CommandAction =
  | { readonly type: 'command'; readonly command: UiCommand }
  /** The running turn did not take a submitted prompt (refused at once, or discarded at its end). */
  | { readonly type: 'not_taken'; readonly prompt: QueuedPrompt }
  | { readonly type: 'turn_ended' }
  /** The session is closing: nothing starts any more. */
  | { readonly type: 'close' };

export type CommandEffect =
  | { readonly type: 'start_turn'; readonly prompt: QueuedPrompt }
  | { readonly type: 'submit'; readonly prompt: QueuedPrompt }
  | { readonly type: 'answer'; readonly requestId: string; readonly answer: PermissionAnswer }
  | { readonly type: 'answer_elicitation'; readonly requestId: string; readonly answer: McpElicitationAnswer }
  | { readonly type: 'abort' };

export const IDLE: CommandState = Object.freeze({ running: false, waiting: [] });

export function reduceCommands(state: CommandState, action: CommandAction): { readonly state: CommandState; readonly effects: readonly CommandEffect[] } {
  switch (action.type) {
    case 'command':
      return onCommand(state, action.command);
    case 'not_taken':
      // Still running (a turn that refuses is ending): it waits for the next one.
      return state.running ? { state: { ...state, waiting: [...state.waiting, action.prompt] }, effects: [] } : { state: { ...state, running: true }, effects: [{ type: 'start_turn', prompt: action.prompt }] };
    case 'turn_ended': {
      const [next, ...rest] = state.waiting;
      return next ? { state: { running: true, waiting: rest }, effects: [{ type: 'start_turn', prompt: next }] } : { state: IDLE, effects: [] };
    }
    case 'close':
      return { state: { running: state.running, waiting: [] }, effects: state.running ? [{ type: 'abort' }] : [] };
    default:
      return assertNever(action, 'command action');
  }
}

function onCommand(state: CommandState, command: UiCommand): { state: CommandState; effects: readonly CommandEffect[] } {
  switch (command.type) {
    case 'prompt':
      if (!state.running) return { state: { ...state, running: true }, effects: [{ type: 'start_turn', prompt: command }] };
      // Behind prompts already waiting, order is kept: they all go to the next turn.
      if (state.waiting.length > 0) return { state: { ...state, waiting: [...state.waiting, command] }, effects: [] };
      return { state, effects: [{ type: 'submit', prompt: command }] };
    case 'permission': {
      const { type: _type, requestId, ...answer } = command;
      return { state, effects: [{ type: 'answer', requestId, answer: answer as PermissionAnswer }] };
    }
    case 'elicitation': {
      const { type: _type, requestId, ...answer } = command;
      return { state, effects: [{ type: 'answer_elicitation', requestId, answer }] };
    }
    case 'stop':
      return state.running ? { state: { ...state, waiting: [] }, effects: [{ type: 'abort' }] } : { state, effects: [] };
    default:
      return assertNever(command, 'UI command');
  }
}
