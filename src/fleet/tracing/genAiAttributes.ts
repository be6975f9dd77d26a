/**
 * The attribute names of OpenTelemetry's GenAI semantic conventions rxagent's spans carry, in one
 * place so the spans and the tests agree on the spelling.
 */
export const GEN_AI = {
  operationName: 'gen_ai.operation.name',
  system: 'gen_ai.system',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  cacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  cacheCreationInputTokens: 'gen_ai.usage.cache_creation.input_tokens',
  toolName: 'gen_ai.tool.name',
  toolCallId: 'gen_ai.tool.call.id',
  agentName: 'gen_ai.agent.name',
  conversationId: 'gen_ai.conversation.id',
} as const;

/** rxagent's own attributes (no convention covers them). */
export const RXAGENT = {
  turn: 'rxagent.turn',
  terminalReason: 'rxagent.terminal_reason',
  costUsd: 'rxagent.cost_usd',
  toolDurationMs: 'rxagent.tool.duration_ms',
  retryAttempt: 'rxagent.retry.attempt',
  retryStatus: 'rxagent.retry.status',
  retryErrorType: 'rxagent.retry.error_type',
  compactTrigger: 'rxagent.compact.trigger',
  compactPreTokens: 'rxagent.compact.pre_tokens',
  compactPostTokens: 'rxagent.compact.post_tokens',
  depth: 'rxagent.depth',
} as const;
