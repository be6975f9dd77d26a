export { accessFor, createSandbox, NO_SANDBOX } from './createSandbox.js';
export type { CreatedSandbox, SandboxOptions } from './createSandbox.js';
export { isProtectedSegment, PROTECTED_DIR_NAMES } from './protectedDirs.js';
export { describeSandbox } from './types.js';
export type { CommandSandbox, SandboxAccess, SandboxSettings, SandboxStatus, SpawnPlan } from './types.js';
