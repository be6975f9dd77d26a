/**
 * The texts of error `tool_result`s. Each says what went wrong in terms the model can act on:
 * which tool, which parameter, what to send instead. Our own wording (never the reference's).
 */
import type { z } from 'zod';

/** How much of a non-JSON input is quoted back to the model. */
export const RAW_INPUT_QUOTE_CHARS = 200;

export function unknownToolText(name: string, suggestions: readonly string[], available: readonly string[]): string {
  const head = `There is no tool named \`${name}\`.`;
  if (suggestions.length > 0) {
    return `${head} Did you mean ${suggestions.map((s) => `\`${s}\``).join(' or ')}? Call it by its exact name.`;
  }
  if (available.length === 0) return `${head} No tools are available in this session.`;
  const shown = available.slice(0, 20).map((s) => `\`${s}\``).join(', ');
  const more = available.length > 20 ? `, and ${available.length - 20} more` : '';
  return `${head} The available tools are ${shown}${more}.`;
}

export function abortedBeforeStartText(name: string): string {
  return `The call to \`${name}\` was cancelled before it started; nothing was done.`;
}

export function invalidJsonText(name: string, rawInput: string, reason: string): string {
  const quoted =
    rawInput.length > RAW_INPUT_QUOTE_CHARS
      ? `${rawInput.slice(0, RAW_INPUT_QUOTE_CHARS)}… (${rawInput.length} characters in all)`
      : rawInput;
  return (
    `The input for \`${name}\` was not valid JSON (${reason}). It began with:\n${quoted}\n` +
    'Nothing was run. Send the call again with the input as a single valid JSON object.'
  );
}

/** One line per issue, naming the parameter. `input` lets us tell "missing" from "wrong type". */
export function schemaIssuesText(name: string, issues: readonly z.core.$ZodIssue[], input: unknown): string {
  const lines = issues.flatMap((issue) => describeIssue(issue, input));
  return `The input for \`${name}\` does not match its schema:\n${lines.map((l) => `- ${l}`).join('\n')}\nFix these and call the tool again.`;
}

export function invalidRewriteText(name: string, source: string, issues: readonly z.core.$ZodIssue[], input: unknown): string {
  const lines = issues.flatMap((issue) => describeIssue(issue, input));
  return (
    `Configuration error: ${source} rewrote the input for \`${name}\` into one that does not match the tool's schema ` +
    `(${lines.join('; ')}). The tool was not called. This is not your mistake; tell the user if it persists.`
  );
}

export function validateInputText(name: string, message: string): string {
  return `\`${name}\` refused this input: ${message}`;
}

export function permissionDeniedText(name: string, message: string): string {
  return `Permission to use \`${name}\` was denied: ${message}`;
}

export function hookBlockedText(name: string, reason: string): string {
  return `A PreToolUse hook blocked \`${name}\`: ${reason}`;
}

/** Placeholder for a deferred call (the loop ends before sending it; shown if it ever is). */
export function deferredText(name: string, reason: string | undefined): string {
  return `A PreToolUse hook deferred \`${name}\`${reason ? ` (${reason})` : ''}; it was not run.`;
}

export function postHookBlockedText(reason: string): string {
  return `A PostToolUse hook flagged this result: ${reason}`;
}

export function seamFailedText(name: string, seam: string, error: unknown): string {
  return `The ${seam} failed while checking the call to \`${name}\`, so the tool was not called: ${errorMessage(error)}`;
}

export function toolThrewText(name: string, error: unknown): string {
  return `\`${name}\` failed: ${errorMessage(error)}`;
}

export function timeoutText(name: string, ms: number): string {
  return `\`${name}\` did not finish within ${ms} ms and was stopped. Try a smaller task or a narrower input.`;
}

export function cancelledText(name: string): string {
  return `The call to \`${name}\` was cancelled before it finished.`;
}

export function interruptedText(name: string): string {
  return `The call to \`${name}\` was interrupted by the user.`;
}

export function notStartedInterruptedText(name: string): string {
  return `The call to \`${name}\` was not run: the user interrupted before it could start.`;
}

export function truncatedCallText(name: string): string {
  return (
    `The call to \`${name}\` was cut off by the output token limit before it was complete, so it was not run. ` +
    'Split the work into smaller pieces (for example write a large file in several calls) and try again.'
  );
}

/** Like `truncatedCallText`, for a call that had already started (a safe call starts at its block's stop). */
export function truncatedStartedCallText(name: string): string {
  return (
    `The call to \`${name}\` was cut off by the output token limit. It had already started and was stopped, ` +
    'so some of its effects may have happened: check before repeating it, and split the work into smaller pieces.'
  );
}

export function modelStreamFailedText(name: string): string {
  return `The call to \`${name}\` was not completed because the model's response failed.`;
}

export function batchTimeoutText(name: string, ms: number): string {
  return `The call to \`${name}\` was stopped: the tools of this response did not finish within ${ms} ms.`;
}

export function rejectedOutputRewriteText(name: string, error: string): string {
  return `A PostToolUse hook's rewrite of the output of \`${name}\` did not match the output schema (${error}); the original output was kept.`;
}

export function truncationMarker(cut: number, limit: number): string {
  return `\n\n[… ${cut} more characters cut: the result exceeded the limit of ${limit} characters]`;
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}

function describeIssue(issue: z.core.$ZodIssue, input: unknown): string[] {
  const where = formatPath(issue.path);
  switch (issue.code) {
    case 'unrecognized_keys':
      return issue.keys.map((key) => `unexpected parameter \`${joinPath(issue.path, key)}\``);
    case 'invalid_type':
      if (issue.path.length > 0 && valueAt(input, issue.path) === undefined) {
        return [`missing required parameter \`${where}\``];
      }
      return [`\`${where}\` should be ${article(issue.expected)} (got ${describeValue(valueAt(input, issue.path))})`];
    case 'invalid_value':
      return [`\`${where}\` should be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`];
    default:
      return [`\`${where}\`: ${issue.message}`];
  }
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'input';
  return path.reduce<string>(
    (acc, key) => (typeof key === 'number' ? `${acc}[${key}]` : acc ? `${acc}.${String(key)}` : String(key)),
    '',
  );
}

function joinPath(path: readonly PropertyKey[], key: string): string {
  return path.length === 0 ? key : `${formatPath(path)}.${key}`;
}

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const key of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[key];
  }
  return current;
}

function article(expected: string): string {
  if (expected === 'array' || expected === 'object') return `an ${expected}`;
  if (/^[aeiou]/.test(expected)) return `an ${expected}`;
  return `a ${expected}`;
}

function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : typeof value;
}
