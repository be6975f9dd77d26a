/**
 * The MCP limits Claude Code reads from its environment, with its defaults:
 * `MCP_TIMEOUT` (server start-up, ms), `MCP_TOOL_TIMEOUT` (one tool call, ms) and
 * `MAX_MCP_OUTPUT_TOKENS` (the size of one tool result).
 */
import { ConfigurationError } from '../errors.js';
import type { EnvLookup } from './expandEnv.js';

export interface McpLimits {
  /** How long a server may take to start and answer `initialize` and the first listing. */
  readonly connectTimeoutMs: number;
  /** How long one tool call may run before it is cancelled. */
  readonly toolTimeoutMs: number;
  /** Tool results longer than this (estimated at 4 characters a token) are cut with a note. */
  readonly maxOutputTokens: number;
}

export const DEFAULT_MCP_LIMITS: McpLimits = Object.freeze({
  connectTimeoutMs: 30_000,
  // Claude Code's default is effectively "no limit" (about 28 hours); so is ours.
  toolTimeoutMs: 100_000_000,
  maxOutputTokens: 25_000,
});

/** Characters per token for the output limit: the same rough estimate the context code uses. */
export const CHARS_PER_TOKEN = 4;

/** The limits from `MCP_TIMEOUT`, `MCP_TOOL_TIMEOUT` and `MAX_MCP_OUTPUT_TOKENS`; unset ones keep the defaults. */
export function mcpLimitsFromEnv(env: EnvLookup): McpLimits {
  return {
    connectTimeoutMs: positive(env, 'MCP_TIMEOUT') ?? DEFAULT_MCP_LIMITS.connectTimeoutMs,
    toolTimeoutMs: positive(env, 'MCP_TOOL_TIMEOUT') ?? DEFAULT_MCP_LIMITS.toolTimeoutMs,
    maxOutputTokens: positive(env, 'MAX_MCP_OUTPUT_TOKENS') ?? DEFAULT_MCP_LIMITS.maxOutputTokens,
  };
}

function positive(env: EnvLookup, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new ConfigurationError(`${name} must be a positive whole number (got '${raw}')`);
  return n;
}
