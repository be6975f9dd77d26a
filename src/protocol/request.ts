/** The request body of `POST /v1/messages`, the subset the loop sends. */
import { z } from 'zod';
import { cacheControlSchema, messageParamSchema, textBlockSchema } from './content.js';

export const toolDefinitionSchema = z.looseObject({
  name: z.string().min(1).max(128),
  description: z.string().optional(),
  input_schema: z.looseObject({ type: z.literal('object') }),
  cache_control: cacheControlSchema.optional(),
});
export type ToolDefinition = z.infer<typeof toolDefinitionSchema>;

/**
 * A tool the API runs itself (`web_search_20250305`, `web_fetch_20250910`, code execution, ...):
 * a versioned `type` and a `name`, no input schema (the server knows it).
 */
export const serverToolDefinitionSchema = z.looseObject({
  type: z.string().refine((type) => type !== 'custom', { abort: true }),
  name: z.string().min(1).max(128),
  cache_control: cacheControlSchema.optional(),
});
export type ServerToolDefinition = z.infer<typeof serverToolDefinitionSchema>;

export const toolChoiceSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('tool'), name: z.string(), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('none') }),
]);
export type ToolChoice = z.infer<typeof toolChoiceSchema>;

export const thinkingConfigSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().int().positive() }),
  z.looseObject({ type: z.literal('disabled') }),
  // Newer models decide how much to think themselves.
  z.looseObject({ type: z.literal('adaptive') }),
]);
export type ThinkingConfig = z.infer<typeof thinkingConfigSchema>;

export const messagesRequestSchema = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  system: z.union([z.string(), z.array(textBlockSchema)]).optional(),
  messages: z.array(messageParamSchema),
  tools: z.array(z.union([toolDefinitionSchema, serverToolDefinitionSchema])).optional(),
  tool_choice: toolChoiceSchema.optional(),
  thinking: thinkingConfigSchema.optional(),
  metadata: z.looseObject({ user_id: z.string().optional() }).optional(),
  stop_sequences: z.array(z.string()).optional(),
  temperature: z.number().min(0).max(1).optional(),
  stream: z.boolean().optional(),
});
export type MessagesRequest = z.infer<typeof messagesRequestSchema>;
