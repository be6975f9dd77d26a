/**
 * The terminal event the command makes up when the loop breaks its contract (errors instead of
 * ending with a terminal): consumers of the output still get their one result line, an error.
 */
import type { TerminalEvent } from '../../loop/types.js';

export function internalErrorTerminal(error: unknown, startedAt: number, sessionId: string): TerminalEvent {
  return {
    type: 'terminal',
    reason: 'model_error',
    turnCount: 0,
    usage: { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
    costUsd: 0,
    durationMs: Date.now() - startedAt,
    error: { kind: 'internal', message: `internal error: ${error instanceof Error ? error.message : String(error)}` },
    chainId: sessionId,
    depth: 0,
  };
}
