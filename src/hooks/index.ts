export { createHookRunners } from './createHookRunners.js';
export type { HookRunnerOptions, HookRunners, LoopHookResult } from './createHookRunners.js';
export { interpretJSON, interpretProcessOutcome } from './interpretHookOutput.js';
export type { HookOutcome, ProcessOutcome } from './interpretHookOutput.js';
export { compileToolMatcher } from './matcher.js';
export { DEFAULT_HOOK_TIMEOUT_SECONDS, runHook } from './runHook.js';
export type { RunHookOptions } from './runHook.js';
export { EMPTY_SETTINGS, loadSettings, mergeSettings, readSettingsFile, settingsFileSchema } from './settings.js';
export type { LoadSettingsOptions, Settings } from './settings.js';
export { HOOK_EVENTS } from './types.js';
export type {
  CallbackHookSpec,
  CommandHookSpec,
  HookCallback,
  HookEvent,
  HookInput,
  HookInputBase,
  HookJSONOutput,
  HookMatcherGroup,
  HookSpec,
  HooksConfig,
} from './types.js';
