/**
 * An error a tool throws when its call failed but it can still say what happened as data: the
 * model gets the message as an error result, programs get `structured` (stream-json's
 * `tool_use_result`), e.g. Bash's output so far with `interrupted: true` after its timeout.
 */
export class ToolFailure extends Error {
  override readonly name: string = 'ToolFailure';
  constructor(
    message: string,
    readonly structured?: unknown,
  ) {
    super(message);
  }
}
