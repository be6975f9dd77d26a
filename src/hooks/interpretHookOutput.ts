/**
 * Turns what a hook did (exit code and output, or a callback's return) into one `HookOutcome`.
 * Exit 0: success, stdout may be JSON with decisions. Exit 2: blocking, stderr is the reason
 * for the model. Any other exit: a non-blocking error, reported as a warning.
 */
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../util/jsonDepth.js';
import type { HookEvent, HookJSONOutput } from './types.js';

export interface HookOutcome {
  /** The reason to block, when the hook blocked (exit 2 or `decision: "block"`). */
  readonly block?: string;
  /** Stop the loop, with this reason (`continue: false`). */
  readonly preventContinuation?: string;
  readonly permissionDecision?: 'allow' | 'deny' | 'ask' | 'defer';
  readonly permissionDecisionReason?: string;
  readonly updatedInput?: Record<string, unknown>;
  readonly updatedOutput?: unknown;
  readonly additionalContext?: string;
  /** PermissionRequest: the hook's answer to the permission question. */
  readonly permissionAnswer?: { readonly behavior: 'allow'; readonly updatedInput?: Record<string, unknown> } | { readonly behavior: 'deny'; readonly message?: string };
  readonly warnings: readonly string[];
}

export interface ProcessOutcome {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
}

export function interpretProcessOutcome(event: HookEvent, label: string, p: ProcessOutcome): HookOutcome {
  if (p.timedOut) return { warnings: [`${event} hook ${label} timed out and was stopped; its result was ignored.`] };
  if (p.exitCode === 2) {
    const reason = p.stderr.trim() || `${event} hook ${label} blocked without giving a reason`;
    return { block: reason, warnings: [] };
  }
  if (p.exitCode !== 0) {
    const detail = p.stderr.trim() || p.stdout.trim();
    return {
      warnings: [`${event} hook ${label} failed with ${p.exitCode === null ? 'a signal' : `exit code ${p.exitCode}`}${detail ? `: ${detail}` : ''}`],
    };
  }
  const text = p.stdout.trim();
  if (text.startsWith('{')) {
    if (jsonNestsDeeperThan(text)) {
      return { warnings: [`${event} hook ${label} printed JSON nested deeper than ${MAX_JSON_DEPTH} levels; its output was ignored.`] };
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      return { warnings: [`${event} hook ${label} printed invalid JSON (${(error as Error).message}); its output was ignored.`] };
    }
    return interpretJSON(event, label, parsed);
  }
  // Plain text from a prompt or session-start hook is context for the model; elsewhere it is only a transcript note.
  return (event === 'UserPromptSubmit' || event === 'SessionStart') && text !== '' ? { additionalContext: text, warnings: [] } : { warnings: [] };
}

export function interpretJSON(event: HookEvent, label: string, value: unknown): HookOutcome {
  if (value === undefined || value === null) return { warnings: [] };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return { warnings: [`${event} hook ${label} answered with ${Array.isArray(value) ? 'an array' : typeof value}, not a JSON object; ignored.`] };
  }
  const out = value as HookJSONOutput;
  const warnings: string[] = [];
  if (out.systemMessage) warnings.push(String(out.systemMessage));
  const specific = typeof out.hookSpecificOutput === 'object' && out.hookSpecificOutput !== null ? out.hookSpecificOutput : undefined;
  let permissionDecision = specific?.permissionDecision;
  if (permissionDecision !== undefined && !['allow', 'deny', 'ask', 'defer'].includes(permissionDecision)) {
    warnings.push(`${event} hook ${label} gave an unknown permissionDecision ${JSON.stringify(permissionDecision)}; ignored.`);
    permissionDecision = undefined;
  }
  if (permissionDecision === undefined && out.decision === 'approve') permissionDecision = 'allow';
  const updatedInput = specific?.updatedInput;
  if (updatedInput !== undefined && (typeof updatedInput !== 'object' || updatedInput === null || Array.isArray(updatedInput))) {
    warnings.push(`${event} hook ${label} gave an updatedInput that is not an object; ignored.`);
  }
  const reason = out.reason ?? specific?.permissionDecisionReason;
  const permissionAnswer = event === 'PermissionRequest' ? permissionAnswerOf(specific?.decision, event, label, warnings) : undefined;
  return {
    ...(permissionAnswer ? { permissionAnswer } : {}),
    ...(out.decision === 'block' ? { block: out.reason?.trim() || `${event} hook ${label} blocked without giving a reason` } : {}),
    ...(out.continue === false ? { preventContinuation: out.stopReason?.trim() || `${event} hook ${label} stopped the session` } : {}),
    ...(permissionDecision ? { permissionDecision } : {}),
    ...(permissionDecision && reason ? { permissionDecisionReason: reason } : {}),
    ...(updatedInput !== undefined && typeof updatedInput === 'object' && updatedInput !== null && !Array.isArray(updatedInput)
      ? { updatedInput }
      : {}),
    ...(specific && 'updatedOutput' in specific ? { updatedOutput: specific.updatedOutput } : {}),
    ...(typeof specific?.additionalContext === 'string' && specific.additionalContext !== ''
      ? { additionalContext: specific.additionalContext }
      : {}),
    warnings,
  };
}

/** A PermissionRequest hook's `decision` (`{behavior, updatedInput?, message?}`), checked. */
function permissionAnswerOf(decision: unknown, event: HookEvent, label: string, warnings: string[]): HookOutcome['permissionAnswer'] {
  if (decision === undefined || decision === null) return undefined;
  const d = decision as { behavior?: unknown; updatedInput?: unknown; message?: unknown };
  if (typeof decision !== 'object' || (d.behavior !== 'allow' && d.behavior !== 'deny')) {
    warnings.push(`${event} hook ${label} gave a decision without behavior "allow" or "deny"; ignored.`);
    return undefined;
  }
  if (d.behavior === 'deny') return { behavior: 'deny', ...(typeof d.message === 'string' && d.message !== '' ? { message: d.message } : {}) };
  const input = d.updatedInput;
  const isObject = typeof input === 'object' && input !== null && !Array.isArray(input);
  return { behavior: 'allow', ...(isObject ? { updatedInput: input as Record<string, unknown> } : {}) };
}
