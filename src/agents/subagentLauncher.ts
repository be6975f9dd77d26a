/**
 * The `SubagentLauncher` a tree node gives its Agent tool: how a call becomes a child. A child is
 * another tree node (`spawn`, so it may have children of its own down to `maxDepth`) built from
 * `childOptions` when it is subscribed, holding one slot of the tree's caps (subagentSlots.ts)
 * for as long as it runs.
 *
 * When the slot is taken:
 * - foreground: when the Agent call subscribes to the child, so a refusal is the call's error
 *   result and nothing started;
 * - background: at launch, so a refused launch throws before the call says "launched".
 */
import { randomUUID } from 'node:crypto';
import { defer, finalize, type Observable } from 'rxjs';
import { SubagentLimitError } from '../errors.js';
import type { CallModel } from '../loop/options.js';
import type { LoopEvent } from '../loop/types.js';
import type { AgentToolInput, SubagentLauncher } from './agentTool.js';
import type { BackgroundChildren } from './backgroundChildren.js';
import type { StartedChild } from './childReports.js';
import { childOptions } from './childOptions.js';
import type { AgentDefinition } from './definitions.js';
import type { SubagentSlot, SubagentSlots } from './subagentSlots.js';
import type { TreeBudget } from './treeBudget.js';
import type { AgentTreeOptions, SubagentInfo } from './treeOptions.js';

/** What one node of the tree is, besides its options. */
export interface NodeConfig {
  /** 0 for the top-level loop. */
  readonly depth: number;
  readonly definitions: ReadonlyMap<string, AgentDefinition>;
  /** False when the definition's tool list leaves the Agent tool out. */
  readonly agentToolAllowed: boolean;
  /** The tree's subagent caps: one counter for every node. */
  readonly slots: SubagentSlots;
}

export interface LauncherSetup {
  readonly options: AgentTreeOptions;
  readonly node: NodeConfig;
  readonly budget: TreeBudget;
  /** The node's model call (its client or `deps.callModel`), the children's default. */
  readonly baseCallModel: CallModel | undefined;
  readonly toolName: string;
  /** Aborted with the node: a background child's signal. */
  readonly nodeSignal: AbortSignal;
  readonly background: BackgroundChildren;
  /** Builds a child node (the tree itself: passed in, as this file is below it). */
  readonly spawn: (options: AgentTreeOptions, node: NodeConfig) => Observable<LoopEvent>;
}

export function createSubagentLauncher(setup: LauncherSetup): SubagentLauncher {
  const { options, node } = setup;
  const newAgentId = options.agents?.newAgentId ?? (() => `agent-${randomUUID().replace(/-/g, '').slice(0, 8)}`);

  /** A child holding the slot `takeSlot` gives when it is subscribed; it frees it however it ends. */
  const startChild = (
    definition: AgentDefinition,
    input: AgentToolInput,
    parentToolUseId: string,
    background: boolean,
    signal: AbortSignal,
    takeSlot: () => SubagentSlot,
  ): StartedChild => {
    const agentId = newAgentId();
    const agentDepth = node.depth + 1;
    const info: SubagentInfo = { agentId, agentType: definition.name, agentDepth, parentToolUseId, background, description: input.description };
    const events$ = defer(() => {
      const slot = takeSlot();
      return defer(() => {
        const child = childOptions({ parent: options, definition, input, info, signal, budget: setup.budget, baseCallModel: setup.baseCallModel, toolName: setup.toolName });
        return setup.spawn(child.options, { depth: agentDepth, definitions: node.definitions, agentToolAllowed: child.agentToolAllowed, slots: node.slots });
      }).pipe(finalize(() => slot.release()));
    });
    return { agentId, agentType: definition.name, agentDepth, parentToolUseId, background, events$ };
  };

  /** A slot of the tree's caps, or the SubagentLimitError the Agent call fails with. */
  const acquireSlot = (): SubagentSlot => {
    const slot = node.slots.acquire();
    if (slot instanceof SubagentLimitError) throw slot;
    return slot;
  };

  return {
    definitions: node.definitions,
    foreground: (definition, input, parentToolUseId, signal) => startChild(definition, input, parentToolUseId, false, signal, acquireSlot),
    background: (definition, input, parentToolUseId, callSignal) => {
      const slot = acquireSlot();
      const child = startChild(definition, input, parentToolUseId, true, setup.nodeSignal, () => slot);
      setup.background.launch(child, input.description, slot, callSignal);
      return child.agentId;
    },
  };
}
