/**
 * The agent tree specs' shared vocabulary: the `fast` and `slow` definitions, Agent calls, and
 * the letters a tree's output is drawn with. Letters (only these kept): i parent
 * iteration_start, r a parent tool_result that is not an error, x one that is, c a child's
 * terminal (the parent's tool_progress), n a user message carrying a notification, T the
 * tree's terminal.
 */
import type { Observable } from 'rxjs';
import { defineAgent } from '../../src/agents/definitions.js';
import { subagentEventOf } from '../../src/agents/events.js';
import type { LoopEvent } from '../../src/loop/types.js';
import { letters } from '../../src/testing/index.js';
import { toolUse } from '../../test/loop/helpers.js';

export const fast = defineAgent({ name: 'fast', description: 'quick', prompt: 'FAST' });
export const slow = defineAgent({ name: 'slow', description: 'slow', prompt: 'SLOW' });

export const agentCall = (id: string, type: string, background: boolean) =>
  toolUse('Agent', { description: `${type} job`, prompt: `do ${type} as ${id}`, subagent_type: type, ...(background ? { run_in_background: true } : {}) }, id);
export const bg = (id: string, type: string) => agentCall(id, type, true);
export const fg = (id: string, type: string) => agentCall(id, type, false);

export function treeLetterOf(e: LoopEvent): string | undefined {
  const sub = subagentEventOf(e);
  if (sub) return sub.event.type === 'terminal' ? 'c' : undefined;
  if (e.type === 'iteration_start') return 'i';
  if (e.type === 'tool_result') return e.result.is_error ? 'x' : 'r';
  if (e.type === 'user_message' && JSON.stringify(e.message.content).includes('Background subagent')) return 'n';
  if (e.type === 'terminal') return 'T';
  return undefined;
}
export const treeLetters = (events$: Observable<LoopEvent>) => events$.pipe(letters(treeLetterOf));
export const L = { i: 'i', r: 'r', x: 'x', c: 'c', n: 'n', T: 'T' };
