/**
 * The agent tree's options: what a caller of `agentLoopWithSubagents` sets under `agents`, and
 * who a subagent is (`SubagentInfo`) for the per-child factories. Types and one default, in a
 * file of their own so that the tree's parts (childOptions, the launcher) can name them without
 * importing the tree itself.
 */
import type { AgentLoopOptions } from '../loop/options.js';
import type { LoopHooks, TranscriptSink } from '../loop/seams.js';
import type { CanUseTool } from '../tools/hooks.js';
import type { Tool } from '../tools/types.js';
import type { AgentDefinition } from './definitions.js';

export const DEFAULT_MAX_AGENT_DEPTH = 2;

/** Who a subagent is, for the factories below. */
export interface SubagentInfo {
  readonly agentId: string;
  readonly agentType: string;
  /** 1 for a child of the top-level loop. */
  readonly agentDepth: number;
  readonly parentToolUseId: string;
  readonly background: boolean;
  readonly description: string;
}

export interface SubagentOptions {
  /** Added to (and replacing by name) the built-in `general-purpose` definition. */
  readonly definitions?: readonly AgentDefinition[];
  /**
   * The deepest subagent level: children are level 1, grandchildren 2. A loop at this level
   * gets no Agent tool. Default 2; 0 disables subagents.
   */
  readonly maxDepth?: number;
  /**
   * The most subagents running at once in the whole tree (grandchildren included). An Agent call
   * over it gets an error result (a `SubagentLimitError`'s text) and the run goes on. Default 10.
   */
  readonly maxConcurrent?: number;
  /** The most subagents started in one run of the whole tree; over it, as `maxConcurrent`. Default 50. */
  readonly maxPerRun?: number;
  /** When the parent's turn completes while background children run, wait for them. Default true. */
  readonly waitForBackground?: boolean;
  /**
   * The tools a child chooses from (its definition's `tools` filter them). Default: the parent's
   * own tools. Give fresh instances here for per-child state (e.g. a read tracker per child).
   */
  readonly toolsFor?: (child: SubagentInfo, definition: AgentDefinition) => readonly Tool[];
  /** The child's permission policy (e.g. from `definition.permissionMode`). Default: the parent's. */
  readonly canUseToolFor?: (child: SubagentInfo, definition: AgentDefinition) => CanUseTool | undefined;
  /** Where the child's transcript goes. Default: none. */
  readonly transcriptFor?: (child: SubagentInfo, definition: AgentDefinition) => TranscriptSink | undefined;
  /**
   * Loop hooks of the child's own turn (e.g. the command's SubagentStart as its UserPromptSubmit,
   * SubagentStop as its Stop), added to the parent's tool hooks. Default: none.
   */
  readonly hooksFor?: (child: SubagentInfo, definition: AgentDefinition) => LoopHooks | undefined;
  /** Maps a definition's model (e.g. an alias like 'haiku') to a model id. Default: as written. */
  readonly resolveModel?: (model: string) => string;
  /** Default 'Agent'. */
  readonly toolName?: string;
  /** Default: 'agent-' + 8 hex digits. */
  readonly newAgentId?: () => string;
}

export interface AgentTreeOptions extends AgentLoopOptions {
  readonly agents?: SubagentOptions;
}
