/**
 * `rxagent/permissions`: permission rules and modes, the policy that decides a call, and the
 * `canUseTool` seam the loop asks.
 */
export { createPermissionPolicy, decidePermission } from '../permissions/createPermissionPolicy.js';
export type { PermissionAnswer, PermissionPolicyOptions, PermissionRequest, PermissionVerdict } from '../permissions/createPermissionPolicy.js';
export { ruleMatches } from '../permissions/matchRule.js';
export { callKindOf, PERMISSION_MODES } from '../permissions/modes.js';
export type { CallKind, PermissionMode } from '../permissions/modes.js';
export { parseRule, parseRuleStrings, parseToolList } from '../permissions/rules.js';
export type { PermissionRule, PermissionRuleSet, PermissionRuleStrings, RuleBehavior } from '../permissions/rules.js';
export { askDeniedMessage } from '../tools/hooks.js';
export type { CanUseTool, CanUseToolContext, PermissionDecision, PermissionResult } from '../tools/hooks.js';
export { createReadDenyCheck } from '../permissions/readDenyCheck.js';
export type { ReadDenyCheck } from '../permissions/readDenyCheck.js';
