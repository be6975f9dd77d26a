/** What the model reads about subagents: tool description, results, notifications. Our own wording. */
import type { TerminalEvent } from '../loop/types.js';
import type { AgentDefinition } from './definitions.js';

export function agentToolDescription(definitions: Iterable<AgentDefinition>): string {
  const lines = [...definitions].map((d) => {
    const tools = d.tools ? d.tools.join(', ') : 'all tools';
    return `- ${d.name}: ${d.description} (tools: ${tools})`;
  });
  return [
    'Hand a self-contained task to a subagent: a separate agent with its own conversation and tools.',
    'It sees only the prompt you give it, so say everything it needs: the goal, what is known, and what to report back.',
    'Its final message comes back to you as this tool\'s result; the user does not see it, so pass on what matters.',
    'Several Agent calls in one response run at the same time.',
    'With run_in_background: true the call returns at once and the final message is delivered to you later as a message; do not poll for it.',
    '',
    'Available subagent types (subagent_type):',
    ...lines,
  ].join('\n');
}

export interface ChildSummary {
  readonly agentId: string;
  readonly agentType: string;
  readonly terminal: TerminalEvent;
  readonly costUsd: number;
}

export function usageLine(s: ChildSummary): string {
  const t = s.terminal;
  const turns = `${t.turnCount} turn${t.turnCount === 1 ? '' : 's'}`;
  return `[subagent ${s.agentType} ${s.agentId}: ${t.reason}, ${turns}, ${t.usage.inputTokens} input + ${t.usage.outputTokens} output tokens, $${s.costUsd.toFixed(4)}]`;
}

export const NO_FINAL_MESSAGE = '(the subagent ended without a final message)';

/** Why a child's end is a failure for the parent, in words the model can act on. */
export function childFailureText(s: ChildSummary): string {
  const t = s.terminal;
  const why =
    t.reason === 'budget_exhausted'
      ? 'the shared cost budget is spent, so no further model calls can be made'
      : t.reason === 'aborted_streaming' || t.reason === 'aborted_tools'
        ? 'it was cancelled'
        : (t.error?.message ?? t.reason);
  const partial = t.lastAssistantText ? `\nIts last message before stopping:\n${t.lastAssistantText}` : '';
  return `subagent ${s.agentType} (${s.agentId}) stopped with ${t.reason}: ${why}.${partial}\n${usageLine(s)}`;
}

export function launchedText(agentId: string, agentType: string, description: string): string {
  return (
    `Started background subagent ${agentId} (${agentType}: ${description}). It works on its own; ` +
    'its final message will be delivered to you as a message when it finishes. Do not wait or poll for it: ' +
    'go on with other work, or end your turn if there is nothing else to do.'
  );
}

export function notificationText(input: {
  readonly agentId: string;
  readonly agentType: string;
  readonly description: string;
  readonly ok: boolean;
  readonly body: string;
}): string {
  const head = input.ok
    ? `Background subagent ${input.agentId} (${input.agentType}: ${input.description}) finished. Its final message:`
    : `Background subagent ${input.agentId} (${input.agentType}: ${input.description}) failed:`;
  return `${head}\n${input.body}`;
}
