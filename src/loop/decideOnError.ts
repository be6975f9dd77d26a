/** A model call that failed for good (after transport retries and any fallback): which terminal. */
import { ApiError, RxAgentError } from '../errors.js';
import type { LoopError, TerminalReason } from './types.js';

export function isPromptTooLong(error: unknown): boolean {
  return error instanceof ApiError && error.isPromptTooLong;
}

/** Overloaded after retries: the condition for switching to the fallback model. */
export function isOverloaded(error: unknown): boolean {
  return error instanceof ApiError && (error.status === 529 || error.errorType === 'overloaded_error');
}

export function loopErrorOf(error: unknown): LoopError {
  if (error instanceof ApiError) {
    return {
      kind: 'api',
      message: error.message,
      ...(error.status !== undefined ? { status: error.status } : {}),
      errorType: error.errorType,
    };
  }
  if (error instanceof RxAgentError) return { kind: error.kind, message: error.message };
  return { kind: 'internal', message: error instanceof Error ? error.message : String(error) };
}

/** HTTP/API errors end `api_error` (with the status); a broken stream or connection `model_error`. */
export function decideOnError(error: unknown): { reason: TerminalReason; error: LoopError } {
  if (isPromptTooLong(error)) return { reason: 'prompt_too_long', error: loopErrorOf(error) };
  if (error instanceof ApiError) return { reason: 'api_error', error: loopErrorOf(error) };
  return { reason: 'model_error', error: loopErrorOf(error) };
}
