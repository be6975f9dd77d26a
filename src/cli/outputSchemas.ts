/**
 * The stream-json output protocol: one JSON object per line, in the shapes of Claude Code's print
 * mode and the Claude Agent SDK, so existing consumers work unchanged. Every line the command
 * prints is checked against these schemas in the tests.
 */
import { z } from 'zod';
import { contentBlockSchema, usageSchema } from '../protocol/content.js';

const base = {
  session_id: z.string(),
  uuid: z.string(),
};

export const initLineSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('init'),
  ...base,
  cwd: z.string(),
  model: z.string(),
  tools: z.array(z.string()),
  permissionMode: z.string(),
  apiKeySource: z.string(),
  output_style: z.string(),
  /** rxagent's own version (the SDK's type names the field after Claude Code). */
  claude_code_version: z.string(),
  mcp_servers: z.array(z.looseObject({ name: z.string(), status: z.string() })),
  slash_commands: z.array(z.string()),
  skills: z.array(z.string()),
  plugins: z.array(z.looseObject({ name: z.string(), path: z.string() })),
  agents: z.array(z.string()),
  betas: z.array(z.string()).optional(),
  /** What confines Bash and hook commands (rxagent's addition; `enabled: false` says why not). */
  sandbox: z
    .union([
      z.strictObject({ enabled: z.literal(true), kind: z.literal('bwrap'), network: z.enum(['none', 'host', 'proxy']) }),
      z.strictObject({ enabled: z.literal(false), reason: z.string() }),
    ])
    .optional(),
});

/** The SDK's kinds of API failure (`SDKAssistantMessageError`) that rxagent reports on retries. */
export const RETRY_ERRORS = ['overloaded', 'rate_limit', 'server_error', 'authentication_failed', 'billing_error', 'invalid_request', 'model_not_found', 'unknown'] as const;

export const assistantLineSchema = z.strictObject({
  type: z.literal('assistant'),
  ...base,
  parent_tool_use_id: z.string().nullable(),
  message: z.looseObject({
    id: z.string(),
    type: z.literal('message'),
    role: z.literal('assistant'),
    model: z.string(),
    content: z.array(contentBlockSchema),
    stop_reason: z.string().nullable(),
    stop_sequence: z.string().nullable(),
    usage: usageSchema,
  }),
});

export const userLineSchema = z.strictObject({
  type: z.literal('user'),
  ...base,
  parent_tool_use_id: z.string().nullable(),
  message: z.looseObject({ role: z.literal('user'), content: z.union([z.string(), z.array(contentBlockSchema)]) }),
  /** On tool result lines: what the tool returned, as the model got it. */
  tool_use_result: z.unknown().optional(),
});

/** `--replay-user-messages`: a stream-json user line echoed back, marked as a replay. */
export const userReplayLineSchema = userLineSchema.extend({ isReplay: z.literal(true) });

export const streamEventLineSchema = z.strictObject({
  type: z.literal('stream_event'),
  ...base,
  parent_tool_use_id: z.string().nullable(),
  event: z.looseObject({ type: z.string() }),
});

export const apiRetryLineSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('api_retry'),
  ...base,
  attempt: z.number().int().positive(),
  max_retries: z.number().int().nonnegative(),
  retry_delay_ms: z.number().nonnegative(),
  error_status: z.number().int().nullable(),
  error: z.enum(RETRY_ERRORS),
  /** rxagent addition: true when the partial response already printed must be discarded. */
  discard_partial: z.boolean(),
});

export const compactBoundaryLineSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('compact_boundary'),
  ...base,
  compact_metadata: z.strictObject({ trigger: z.string(), pre_tokens: z.number() }),
});

export const tombstoneLineSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('tombstone'),
  ...base,
  uuids: z.array(z.string()),
});

export const warningLineSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('warning'),
  ...base,
  message: z.string(),
});

/** A built-in's report (`/cost`, `/context`), as the SDK's `SDKLocalCommandOutputMessage`. */
export const localCommandOutputLineSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('local_command_output'),
  ...base,
  content: z.string(),
});

/**
 * `/clear`: the conversation was discarded; what follows belongs to `new_conversation_id` (the
 * new session's id). `session_id` is the session that was cleared; `user_message_uuid` the
 * host's uuid of the `/clear` message, when it gave one.
 */
export const conversationResetLineSchema = z.strictObject({
  type: z.literal('conversation_reset'),
  ...base,
  new_conversation_id: z.string(),
  trigger: z.literal('clear'),
  user_message_uuid: z.string().optional(),
  timestamp: z.string(),
});

/** `--include-hook-events` (SessionStart always): a hook began to run. */
export const hookStartedLineSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('hook_started'),
  ...base,
  hook_id: z.string(),
  /** `<event>:<what it ran for>`, e.g. `PreToolUse:Bash`, `SessionStart:startup`, or the bare event. */
  hook_name: z.string(),
  hook_event: z.string(),
});

/** How that hook run ended: its output (stdout, then stderr), exit code and outcome. */
export const hookResponseLineSchema = z.strictObject({
  type: z.literal('system'),
  subtype: z.literal('hook_response'),
  ...base,
  hook_id: z.string(),
  hook_name: z.string(),
  hook_event: z.string(),
  output: z.string(),
  stdout: z.string(),
  stderr: z.string(),
  exit_code: z.number().int().optional(),
  outcome: z.enum(['success', 'error', 'cancelled']),
});

/** One model's share of a run (the SDK's `ModelUsage`). */
export const modelUsageSchema = z.strictObject({
  inputTokens: z.number(),
  outputTokens: z.number(),
  cacheReadInputTokens: z.number(),
  cacheCreationInputTokens: z.number(),
  webSearchRequests: z.number(),
  costUSD: z.number(),
  contextWindow: z.number(),
  maxOutputTokens: z.number(),
});
export type ModelUsage = z.infer<typeof modelUsageSchema>;
export type RetryError = (typeof RETRY_ERRORS)[number];

export const RESULT_SUBTYPES = ['success', 'error_max_turns', 'error_during_execution', 'error_max_budget_usd', 'error_max_structured_output_retries'] as const;
export type ResultSubtype = (typeof RESULT_SUBTYPES)[number];

export const resultLineSchema = z.strictObject({
  type: z.literal('result'),
  subtype: z.enum(RESULT_SUBTYPES),
  ...base,
  is_error: z.boolean(),
  result: z.string().optional(),
  num_turns: z.number().int().nonnegative(),
  terminal_reason: z.string(),
  stop_reason: z.string().nullable(),
  duration_ms: z.number().nonnegative(),
  duration_api_ms: z.number().nonnegative(),
  total_cost_usd: z.number().nonnegative(),
  usage: z.looseObject({
    input_tokens: z.number(),
    output_tokens: z.number(),
    cache_creation_input_tokens: z.number(),
    cache_read_input_tokens: z.number(),
  }),
  /** Per model that answered: tokens, cost, context window (the SDK's `ModelUsage`). */
  modelUsage: z.record(z.string(), modelUsageSchema),
  permission_denials: z.array(z.looseObject({ tool_name: z.string(), tool_use_id: z.string() })),
  /** With `--json-schema`: the answer, as the model gave it to the StructuredOutput tool. */
  structured_output: z.unknown().optional(),
  errors: z.array(z.string()).optional(),
});

export const outputLineSchema = z.union([
  initLineSchema,
  assistantLineSchema,
  userLineSchema,
  userReplayLineSchema,
  streamEventLineSchema,
  apiRetryLineSchema,
  compactBoundaryLineSchema,
  tombstoneLineSchema,
  warningLineSchema,
  localCommandOutputLineSchema,
  conversationResetLineSchema,
  hookStartedLineSchema,
  hookResponseLineSchema,
  resultLineSchema,
]);

export type InitLine = z.infer<typeof initLineSchema>;
export type AssistantLine = z.infer<typeof assistantLineSchema>;
export type UserLine = z.infer<typeof userLineSchema>;
export type ResultLine = z.infer<typeof resultLineSchema>;
export type OutputLine = z.infer<typeof outputLineSchema>;
