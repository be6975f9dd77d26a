/**
 * `stop_reason: "model_context_window_exceeded"`: the request plus the reply reached the model's
 * context window mid-response. The recovery is the one of a prompt-too-long error (SPEC §14):
 * compact reactively and try again once, else end `prompt_too_long`. So the loop turns the
 * response into that error at its `message` (`ContextWindowExceeded` is an `ApiError` whose
 * `isPromptTooLong` is true) and the existing withholding path does the rest.
 */
import { ApiError } from '../errors.js';
import type { AssistantMessage } from '../protocol/content.js';

export class ContextWindowExceeded extends ApiError {
  constructor(readonly response: AssistantMessage) {
    super(
      undefined,
      'invalid_request_error',
      `the response ${response.id} stopped at the context window of ${response.model} (stop_reason model_context_window_exceeded)`,
      false,
    );
  }
  override get isPromptTooLong(): boolean {
    return true;
  }
}

/** The error to raise for this response, or undefined when it ended some other way. */
export function contextWindowExceeded(message: AssistantMessage): ContextWindowExceeded | undefined {
  return message.stop_reason === 'model_context_window_exceeded' ? new ContextWindowExceeded(message) : undefined;
}
