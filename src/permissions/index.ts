export { createPermissionPolicy, decidePermission } from './createPermissionPolicy.js';
export type { DecideInput, PermissionAnswer, PermissionPolicyOptions, PermissionRequest, PermissionVerdict } from './createPermissionPolicy.js';
export { ruleCoversTool, ruleMatches } from './matchRule.js';
export type { MatchContext } from './matchRule.js';
export { callKindOf, modeVerdict, PERMISSION_MODES } from './modes.js';
export type { CallKind, ModeVerdict, PermissionMode } from './modes.js';
export { parseRule, parseRuleStrings, parseToolList, splitToolList } from './rules.js';
export type { PermissionRule, PermissionRuleSet, PermissionRuleStrings, RuleBehavior } from './rules.js';
