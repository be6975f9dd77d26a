/**
 * The hook events around subagents and compaction, with Claude Code's inputs and meanings:
 * - `SubagentStart` (matcher: the agent type): its `additionalContext` joins the subagent's prompt;
 * - `SubagentStop` (matcher: the agent type): a block (exit 2 or `decision: "block"`) sends its
 *   reason back to the subagent, which goes on, exactly as a Stop hook does for the main turn;
 * - `PreCompact` (matcher: `auto` / `manual`): told a compaction is about to run; its answer
 *   changes nothing.
 * Hook failures are warnings, as everywhere.
 */
import type { HookOutcome } from './interpretHookOutput.js';
import type { HookInvoker } from './invokeHooks.js';

/** The combined answer of a SubagentStop event (a Stop hook's decision for the child). */
export interface SubagentStopResult {
  readonly block?: string;
  readonly preventContinuation?: string;
  readonly warnings: readonly string[];
}

export interface SubagentIdentity {
  readonly agentId: string;
  readonly agentType: string;
}

export interface AgentHookRunners {
  subagentStart(agent: SubagentIdentity, signal?: AbortSignal): Promise<{ readonly additionalContext?: string; readonly warnings: readonly string[] }>;
  subagentStop(
    agent: SubagentIdentity & {
      readonly transcriptPath: string;
      readonly stopHookActive: boolean;
      readonly lastAssistantMessage: string;
      readonly signal?: AbortSignal;
    },
  ): Promise<SubagentStopResult>;
  preCompact(trigger: 'auto' | 'manual', customInstructions: string | null): Promise<void>;
  /** Whether any hook of these events is configured (nothing to wire otherwise). */
  readonly configured: { readonly subagentStart: boolean; readonly subagentStop: boolean; readonly preCompact: boolean };
}

const joined = (parts: ReadonlyArray<string | undefined>, separator: string): string | undefined => {
  const present = parts.filter((p): p is string => p !== undefined && p !== '');
  return present.length > 0 ? present.join(separator) : undefined;
};

const warningsOf = (outcomes: readonly HookOutcome[]) => outcomes.flatMap((o) => o.warnings);

export function createAgentHookRunners(invoker: HookInvoker): AgentHookRunners {
  const { specsFor, base, runAll, report } = invoker;
  return {
    subagentStart: async ({ agentId, agentType }, signal) => {
      const specs = specsFor('SubagentStart', agentType);
      if (specs.length === 0) return { warnings: [] };
      const outcomes = await runAll(specs, { ...base('SubagentStart'), hook_event_name: 'SubagentStart', agent_id: agentId, agent_type: agentType }, signal);
      const additionalContext = joined(outcomes.map((o) => o.additionalContext), '\n\n');
      return { ...(additionalContext ? { additionalContext } : {}), warnings: warningsOf(outcomes) };
    },
    subagentStop: async (agent) => {
      const specs = specsFor('SubagentStop', agent.agentType);
      if (specs.length === 0) return { warnings: [] };
      const outcomes = await runAll(
        specs,
        {
          ...base('SubagentStop'),
          hook_event_name: 'SubagentStop',
          stop_hook_active: agent.stopHookActive,
          agent_id: agent.agentId,
          agent_type: agent.agentType,
          agent_transcript_path: agent.transcriptPath,
          last_assistant_message: agent.lastAssistantMessage,
        },
        agent.signal,
      );
      const block = joined(outcomes.map((o) => o.block), '\n');
      const preventContinuation = outcomes.find((o) => o.preventContinuation !== undefined)?.preventContinuation;
      return { ...(block ? { block } : {}), ...(preventContinuation ? { preventContinuation } : {}), warnings: warningsOf(outcomes) };
    },
    preCompact: async (trigger, customInstructions) => {
      const specs = specsFor('PreCompact', trigger);
      if (specs.length === 0) return;
      report(await runAll(specs, { ...base('PreCompact'), hook_event_name: 'PreCompact', trigger, custom_instructions: customInstructions }));
    },
    configured: {
      subagentStart: specsFor('SubagentStart').length > 0,
      subagentStop: specsFor('SubagentStop').length > 0,
      preCompact: specsFor('PreCompact').length > 0,
    },
  };
}
