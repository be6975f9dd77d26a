/**
 * Builds the hook functions the tool pipeline and the loop call (src/tools/hooks.ts,
 * src/loop/seams.ts) from a `HooksConfig` (settings files and/or in-process callbacks).
 *
 * The hooks matching one event run in parallel; their outcomes are combined: any block wins
 * (reasons joined), permission deny > ask > allow, the last rewrite in configuration order wins,
 * additional context is concatenated. When no hook matches a tool call the answer is synchronous
 * (`undefined`), so configured-but-irrelevant hooks cost the pipeline nothing.
 */
import type { MessageParam, ToolResultBlock } from '../protocol/content.js';
import type {
  HookDecision,
  LoopHooks,
  PostToolBatchHookInput,
  StopHookInput,
  UserPromptSubmitHookInput,
} from '../loop/seams.js';
import type { PostToolUseHook, PostToolUseResult, PreToolUseHook, PreToolUseResult, ToolHooks } from '../tools/hooks.js';
import type { HookOutcome } from './interpretHookOutput.js';
import { createHookInvoker, type HookRunnerOptions } from './invokeHooks.js';
import { createSessionHookRunners, type SessionHookRunners } from './sessionHooks.js';
import { createAgentHookRunners, type AgentHookRunners } from './agentHooks.js';
import type { HookInput } from './types.js';

export type { HookRunnerOptions };

/** The combined answer of the hooks of one loop event. */
export interface LoopHookResult extends HookDecision {
  readonly warnings: readonly string[];
  readonly additionalContext?: string;
}

/** The tool hooks and loop hooks built from a {@link HooksConfig}. */
export interface HookRunners {
  readonly preToolUse: PreToolUseHook;
  readonly postToolUse: PostToolUseHook;
  readonly runStopHooks: (input: StopHookInput) => Promise<LoopHookResult>;
  readonly runPostToolBatchHooks: (input: PostToolBatchHookInput) => Promise<LoopHookResult>;
  readonly runUserPromptSubmitHooks: (input: UserPromptSubmitHookInput) => Promise<LoopHookResult>;
  /** SessionStart, SessionEnd, Notification, PermissionRequest. */
  readonly session: SessionHookRunners;
  /** SubagentStart, SubagentStop, PreCompact. */
  readonly agent: AgentHookRunners;
  /** The same functions shaped for `agentLoop({ hooks })`. */
  readonly toolHooks: ToolHooks;
  readonly loopHooks: LoopHooks;
}

/** Builds the PreToolUse/PostToolUse and loop hook functions from a hooks configuration. */
export function createHookRunners(options: HookRunnerOptions): HookRunners {
  const invoker = createHookInvoker(options);
  const { specsFor, base, runAll, report } = invoker;

  const preToolUse: PreToolUseHook = (input) => {
    const specs = specsFor('PreToolUse', input.toolName);
    if (specs.length === 0) return undefined;
    const hookInput: HookInput = {
      ...base('PreToolUse'),
      hook_event_name: 'PreToolUse',
      tool_name: input.toolName,
      tool_input: input.toolInput,
      tool_use_id: input.toolUseId,
    };
    return runAll(specs, hookInput, input.signal).then((outcomes): PreToolUseResult => {
      report(outcomes);
      const denials = outcomes.filter((o) => o.block !== undefined || o.permissionDecision === 'deny');
      const asks = outcomes.filter((o) => o.permissionDecision === 'ask');
      const defers = outcomes.filter((o) => o.permissionDecision === 'defer');
      const allows = outcomes.filter((o) => o.permissionDecision === 'allow');
      // deny > ask > defer > allow: a deferral that ends up ignored must not skip someone's 'ask'.
      const decided = denials.length
        ? { decision: 'deny' as const, from: denials }
        : asks.length
          ? { decision: 'ask' as const, from: asks }
          : defers.length
            ? { decision: 'defer' as const, from: defers }
            : allows.length
              ? { decision: 'allow' as const, from: allows }
              : undefined;
      const reason = decided && joinDefined(decided.from.map((o) => o.block ?? o.permissionDecisionReason), '\n');
      const updatedInput = [...outcomes].reverse().find((o) => o.updatedInput !== undefined)?.updatedInput;
      const additionalContext = joinDefined(outcomes.map((o) => o.additionalContext), '\n\n');
      const stop = outcomes.find((o) => o.preventContinuation !== undefined)?.preventContinuation;
      return {
        ...(decided ? { decision: decided.decision } : {}),
        ...(reason ? { reason } : {}),
        ...(updatedInput ? { updatedInput } : {}),
        ...(additionalContext ? { additionalContext } : {}),
        ...(stop ? { stopContinuation: { reason: stop } } : {}),
      };
    });
  };

  const postToolUse: PostToolUseHook = (input) => {
    const specs = specsFor('PostToolUse', input.toolName);
    if (specs.length === 0) return undefined;
    const hookInput: HookInput = {
      ...base('PostToolUse'),
      hook_event_name: 'PostToolUse',
      tool_name: input.toolName,
      tool_input: input.toolInput,
      tool_use_id: input.toolUseId,
      // Claude Code gives a hook its tool's structured result (Bash: { stdout, stderr, ... }).
      tool_response: input.structured ?? input.output,
      is_error: input.result.is_error === true,
    };
    return runAll(specs, hookInput, input.signal).then((outcomes): PostToolUseResult => {
      report(outcomes);
      const block = joinDefined(outcomes.map((o) => o.block), '\n');
      const rewritten = [...outcomes].reverse().find((o) => 'updatedOutput' in o);
      const additionalContext = joinDefined(outcomes.map((o) => o.additionalContext), '\n\n');
      const stop = outcomes.find((o) => o.preventContinuation !== undefined)?.preventContinuation;
      return {
        ...(block ? { block } : {}),
        ...(rewritten ? { updatedOutput: rewritten.updatedOutput } : {}),
        ...(additionalContext ? { additionalContext } : {}),
        ...(stop ? { stopContinuation: { reason: stop } } : {}),
      };
    });
  };

  const loopResult = (outcomes: readonly HookOutcome[]): LoopHookResult => {
    const block = joinDefined(outcomes.map((o) => o.block), '\n');
    const stop = outcomes.find((o) => o.preventContinuation !== undefined)?.preventContinuation;
    const additionalContext = joinDefined(outcomes.map((o) => o.additionalContext), '\n\n');
    return {
      ...(block ? { block } : {}),
      ...(stop ? { preventContinuation: stop } : {}),
      ...(additionalContext ? { additionalContext } : {}),
      warnings: outcomes.flatMap((o) => o.warnings),
    };
  };

  const runStopHooks = async (input: StopHookInput): Promise<LoopHookResult> => {
    const specs = specsFor('Stop');
    if (specs.length === 0) return { warnings: [] };
    const hookInput: HookInput = {
      ...base('Stop'),
      hook_event_name: 'Stop',
      stop_hook_active: input.stopHookActive,
      last_assistant_message: input.lastAssistantMessage.content
        .flatMap((b) => (b.type === 'text' ? [b.text] : []))
        .join(''),
    };
    return loopResult(await runAll(specs, hookInput, input.signal));
  };

  const runPostToolBatchHooks = async (input: PostToolBatchHookInput): Promise<LoopHookResult> => {
    const specs = specsFor('PostToolBatch');
    if (specs.length === 0) return { warnings: [] };
    const byId = new Map<string, ToolResultBlock>(input.results.map((r) => [r.tool_use_id, r]));
    const hookInput: HookInput = {
      ...base('PostToolBatch'),
      hook_event_name: 'PostToolBatch',
      tool_calls: input.toolUses.map((use) => ({
        tool_name: use.name,
        tool_input: use.input,
        tool_use_id: use.id,
        tool_response: byId.get(use.id)?.content,
        is_error: byId.get(use.id)?.is_error === true,
      })),
    };
    return loopResult(await runAll(specs, hookInput, input.signal));
  };

  const runUserPromptSubmitHooks = async (input: UserPromptSubmitHookInput): Promise<LoopHookResult> => {
    const specs = specsFor('UserPromptSubmit');
    if (specs.length === 0) return { warnings: [] };
    const hookInput: HookInput = { ...base('UserPromptSubmit'), hook_event_name: 'UserPromptSubmit', prompt: promptText(input.prompt) };
    return loopResult(await runAll(specs, hookInput, input.signal));
  };

  return {
    preToolUse,
    postToolUse,
    runStopHooks,
    runPostToolBatchHooks,
    runUserPromptSubmitHooks,
    session: createSessionHookRunners(invoker),
    agent: createAgentHookRunners(invoker),
    toolHooks: { preToolUse: [preToolUse], postToolUse: [postToolUse] },
    loopHooks: { stop: runStopHooks, postToolBatch: runPostToolBatchHooks, userPromptSubmit: runUserPromptSubmitHooks },
  };
}

function joinDefined(parts: ReadonlyArray<string | undefined>, separator: string): string | undefined {
  const present = parts.filter((p): p is string => p !== undefined && p !== '');
  return present.length ? present.join(separator) : undefined;
}

function promptText(prompt: MessageParam): string {
  if (typeof prompt.content === 'string') return prompt.content;
  return prompt.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
}
