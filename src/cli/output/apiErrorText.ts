/**
 * API failures in Claude Code's words: `API Error: <status> <message>`, the line scripts written
 * for `claude -p` look for (text mode's final stderr line, the result's `errors`, the interactive
 * view). The transport's own message starts `HTTP <status> <type>: ` (it is also read in logs);
 * the status is said once here, followed by the error type and the API's message.
 */
import type { LoopError } from '../../loop/types.js';

export function apiErrorText(error: Pick<LoopError, 'status' | 'message'>): string | undefined {
  if (error.status === undefined) return undefined;
  // The error type stays (`overloaded_error: Overloaded`): Claude Code's line carries it too, in the body it prints.
  const detail = error.message.replace(new RegExp(`^HTTP ${error.status} `), '');
  return `API Error: ${error.status} ${detail}`;
}

/** A retry about to wait, for a person on stderr (text mode; stream-json has its api_retry line). */
export function retryNotice(retry: { readonly attempt: number; readonly maxRetries: number; readonly delayMs: number; readonly status: number | undefined; readonly errorType: string }): string {
  const what = retry.status === undefined ? retry.errorType : `${retry.status} ${retry.errorType}`;
  return `API Error (${what}) · retrying in ${(retry.delayMs / 1000).toFixed(1)} s (attempt ${retry.attempt}/${retry.maxRetries})`;
}
