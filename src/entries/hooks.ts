/**
 * `rxagent/hooks`: Claude Code's settings-file hooks (command and callback hooks, their runners)
 * and the loop's in-process hook seams (Stop, PostToolBatch, UserPromptSubmit, Pre/PostToolUse).
 */
export { createHookRunners } from '../hooks/createHookRunners.js';
export type { HookRunnerOptions, HookRunners, LoopHookResult } from '../hooks/createHookRunners.js';
export { runHook } from '../hooks/runHook.js';
export type { RunHookOptions } from '../hooks/runHook.js';
export { loadSettings, mergeSettings, readSettingsFile } from '../hooks/settings.js';
export type { LoadSettingsOptions, Settings } from '../hooks/settings.js';
export { HOOK_EVENTS } from '../hooks/types.js';
export type {
  CallbackHookSpec,
  CommandHookSpec,
  HookCallback,
  HookEvent,
  HookInput,
  HookJSONOutput,
  HookMatcherGroup,
  HookSpec,
  HooksConfig,
} from '../hooks/types.js';
export type {
  HookDecision,
  LoopHooks,
  PostToolBatchHook,
  PostToolBatchHookInput,
  StopHook,
  StopHookInput,
  UserPromptSubmitHook,
  UserPromptSubmitHookInput,
} from '../loop/seams.js';
export type { PostToolUseHook, PostToolUseInput, PostToolUseResult, PreToolUseHook, PreToolUseInput, PreToolUseResult, StopContinuation, ToolHooks } from '../tools/hooks.js';
export type { AgentLoopHooks } from '../loop/options.js';
