/**
 * The command's SubagentStart / SubagentStop hooks as a subagent's own loop hooks (the agent
 * tree's `hooksFor`): SubagentStart runs where the child's prompt enters its history (its
 * context joins the prompt), SubagentStop where the child would end its turn (a block sends the
 * reason back to the child, which goes on, as a Stop hook does). A run without such hooks gives
 * its children none, so their loops are exactly as before.
 */
import type { SubagentOptions } from '../agents/agentTree.js';
import type { AgentHookRunners } from '../hooks/agentHooks.js';
import type { LoopHooks } from '../loop/seams.js';

export function subagentHooksFor(
  runners: AgentHookRunners,
  transcriptPathOf: (agentId: string) => string,
): SubagentOptions['hooksFor'] {
  const { subagentStart, subagentStop } = runners.configured;
  if (!subagentStart && !subagentStop) return undefined;
  return (child): LoopHooks => {
    const agent = { agentId: child.agentId, agentType: child.agentType };
    return {
      ...(subagentStart
        ? { userPromptSubmit: (input) => runners.subagentStart(agent, input.signal) }
        : {}),
      ...(subagentStop
        ? {
            stop: (input) =>
              runners.subagentStop({
                ...agent,
                transcriptPath: transcriptPathOf(child.agentId),
                stopHookActive: input.stopHookActive,
                lastAssistantMessage: input.lastAssistantMessage.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join(''),
                signal: input.signal,
              }),
          }
        : {}),
    };
  };
}
