/**
 * `childOptions(setup)`: the options of a subagent's loop, from its parent's options and its
 * definition. Pure apart from the caller's own factories (`toolsFor`, `canUseToolFor`,
 * `transcriptFor`, `hooksFor`, `resolveModel`), which it calls once each.
 *
 * - Tools: the definition's `tools` filter the available ones (the parent's, or `toolsFor`'s);
 *   a listed tool that is not available is a ConfigurationError; leaving the Agent tool out of
 *   the list means the child gets none. The parent's `refreshTools` (its MCP servers' tools) is
 *   the child's too, filtered by the same list; listed `mcp__` names are not checked up front
 *   (a server may still be connecting, or be down: its tools are then simply not offered).
 * - Model: the definition's (through `resolveModel`), or the parent's for `inherit`/none; only an
 *   inheriting child inherits thinking.
 * - Prompt caching as the parent's.
 * - Hooks: the tool hooks only (Stop, UserPromptSubmit and PostToolBatch are the parent's turn's),
 *   plus the child's own loop hooks from `hooksFor` (the command's SubagentStart / SubagentStop).
 * - Every request is tagged `querySource: agent:<name>`.
 */
import { ConfigurationError } from '../errors.js';
import { map } from 'rxjs';
import type { AgentLoopHooks, AgentLoopOptions, CallModel } from '../loop/options.js';
import { toolsOfIteration } from '../loop/toolRefresh.js';
import type { AgentTreeOptions, SubagentInfo } from './treeOptions.js';
import type { AgentToolInput } from './agentTool.js';
import type { AgentDefinition } from './definitions.js';

export interface ChildSetup {
  readonly parent: AgentTreeOptions;
  readonly definition: AgentDefinition;
  readonly input: AgentToolInput;
  readonly info: SubagentInfo;
  /** Aborted with the parent's tree. */
  readonly signal: AbortSignal;
  /** The tree's budget, shared by every loop in it. */
  readonly budget: AgentTreeOptions['budget'];
  /** The parent's model call (its client or `deps.callModel`). */
  readonly baseCallModel: CallModel | undefined;
  readonly toolName: string;
}

export interface ChildOptions {
  readonly options: AgentTreeOptions;
  /** False when the definition's tool list leaves the Agent tool out. */
  readonly agentToolAllowed: boolean;
}

export function childOptions(setup: ChildSetup): ChildOptions {
  const { parent, definition, info, baseCallModel } = setup;
  const agents = parent.agents ?? {};
  const available = agents.toolsFor?.(info, definition) ?? parent.tools ?? [];
  let tools = available;
  let agentToolAllowed = true;
  if (definition.tools) {
    const wanted = new Set(definition.tools);
    agentToolAllowed = wanted.delete(setup.toolName);
    const missing = [...wanted].filter((n) => !n.startsWith('mcp__') && !available.some((t) => t.name === n));
    if (missing.length > 0) {
      throw new ConfigurationError(`agent ${definition.name} (${definition.source ?? 'api'}) lists tools that are not available: ${missing.join(', ')}`);
    }
    tools = available.filter((t) => wanted.has(t.name));
  }
  const refreshTools = parent.refreshTools && inheritedRefresh(parent.refreshTools, definition.tools && new Set(definition.tools));
  const inherits = definition.model === undefined || definition.model === 'inherit';
  const model = inherits ? parent.model : (agents.resolveModel?.(definition.model!) ?? definition.model!);
  const callModel: CallModel | undefined =
    baseCallModel && ((request, callOptions) => baseCallModel(request, { ...callOptions, querySource: `agent:${definition.name}` }));
  const ownHooks = agents.hooksFor?.(info, definition);
  const hooks = ownHooks ? { ...toolHooksOnly(parent.hooks), ...ownHooks } : toolHooksOnly(parent.hooks);
  const canUseTool = agents.canUseToolFor ? agents.canUseToolFor(info, definition) : parent.canUseTool;
  const transcript = agents.transcriptFor?.(info, definition);
  const options: AgentTreeOptions = {
    model,
    system: definition.prompt,
    tools,
    prompt: setup.input.prompt,
    budget: setup.budget,
    isSubagent: true,
    signal: setup.signal,
    agents,
    ...(parent.client ? { client: parent.client } : {}),
    ...(definition.maxTurns !== undefined ? { maxTurns: definition.maxTurns } : {}),
    ...(parent.maxOutputTokens !== undefined ? { maxOutputTokens: parent.maxOutputTokens } : {}),
    ...(inherits && parent.thinking ? { thinking: parent.thinking } : {}),
    ...(hooks ? { hooks } : {}),
    ...(refreshTools ? { refreshTools } : {}),
    ...(canUseTool ? { canUseTool } : {}),
    ...(parent.fallbackModel !== undefined ? { fallbackModel: parent.fallbackModel } : {}),
    ...(parent.prices ? { prices: parent.prices } : {}),
    // The child's requests are cached like its parent's (the command turns caching on).
    ...(parent.promptCaching !== undefined ? { promptCaching: parent.promptCaching } : {}),
    ...(transcript ? { transcript } : {}),
    ...(parent.shared ? { shared: parent.shared } : {}),
    ...(parent.repeatedToolCallLimit !== undefined ? { repeatedToolCallLimit: parent.repeatedToolCallLimit } : {}),
    // An interactive run's children ignore a PreToolUse 'defer' too (nobody resolves theirs).
    ...(parent.interactive !== undefined ? { interactive: parent.interactive } : {}),
    deps: { ...parent.deps, ...(callModel ? { callModel } : {}) },
  };
  return { options, agentToolAllowed };
}

/** The parent's refresh seam for a child: its own tools kept, the added ones filtered by `wanted`. */
function inheritedRefresh(refresh: NonNullable<AgentLoopOptions['refreshTools']>, wanted: ReadonlySet<string> | undefined): AgentLoopOptions['refreshTools'] {
  return (own) => toolsOfIteration({ tools: own, refreshTools: refresh }).pipe(map((all) => all.filter((t) => own.includes(t) || !wanted || wanted.has(t.name))));
}

function toolHooksOnly(hooks: AgentLoopHooks | undefined): AgentLoopHooks | undefined {
  if (!hooks) return undefined;
  return {
    ...(hooks.preToolUse ? { preToolUse: hooks.preToolUse } : {}),
    ...(hooks.postToolUse ? { postToolUse: hooks.postToolUse } : {}),
  };
}
