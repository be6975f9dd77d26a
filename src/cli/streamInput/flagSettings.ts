/**
 * `apply_flag_settings` (the SDK's `query.applyFlagSettings()`): settings merged into the flag
 * layer mid-session. The keys this engine can apply while it runs are `model` (the next turn's
 * model; null goes back to the session's) and `permissions.allow` / `deny` / `ask` (the flag
 * layer's rules: as in Claude Code, a call's `permissions` replaces the whole object of an
 * earlier call, and null clears it). Anything else is
 * refused, naming the keys, and then nothing of the call applies, as Claude Code rejects a call
 * it would have to drop, so a host never runs on half of what it asked for.
 */
import { parseRule } from '../../permissions/rules.js';
import type { FlagRules } from '../buildRun.js';

const BEHAVIOURS = ['allow', 'deny', 'ask'] as const;

/** What to apply: a model change (`null`: back to the session's), and the flag rules now. */
export interface FlagSettingsChange {
  readonly model?: string | null;
  readonly rules?: FlagRules;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The change a call asks for, or why it cannot apply. */
export function flagSettingsChange(settings: unknown): FlagSettingsChange | { readonly error: string } {
  if (!isRecord(settings)) return { error: 'settings must be an object' };
  const unknownKeys = Object.keys(settings).filter((k) => k !== 'model' && k !== 'permissions');
  const permissions = settings['permissions'];
  if (permissions !== undefined && permissions !== null && !isRecord(permissions)) return { error: 'permissions must be an object or null' };
  if (isRecord(permissions)) unknownKeys.push(...Object.keys(permissions).filter((k) => !(BEHAVIOURS as readonly string[]).includes(k)).map((k) => `permissions.${k}`));
  if (unknownKeys.length > 0) {
    return { error: `rxagent cannot apply ${unknownKeys.join(', ')} during a session (it applies model and permissions.allow/deny/ask); nothing was applied` };
  }
  const model = settings['model'];
  if (model !== undefined && model !== null && typeof model !== 'string') return { error: 'model must be a string or null' };
  let rules: FlagRules | undefined;
  if (permissions === null) rules = { allow: [], deny: [], ask: [] };
  else if (isRecord(permissions)) {
    const next: Record<(typeof BEHAVIOURS)[number], readonly string[]> = { allow: [], deny: [], ask: [] };
    for (const behaviour of BEHAVIOURS) {
      const list = permissions[behaviour];
      if (list === undefined || list === null) continue;
      if (!Array.isArray(list) || !list.every((r) => typeof r === 'string')) return { error: `permissions.${behaviour} must be an array of rule strings` };
      for (const rule of list) {
        try {
          parseRule(rule);
        } catch (error) {
          return { error: `permissions.${behaviour}: ${(error as Error).message}; nothing was applied` };
        }
      }
      next[behaviour] = list;
    }
    rules = next;
  }
  return { ...(model === undefined ? {} : { model }), ...(rules ? { rules } : {}) };
}
