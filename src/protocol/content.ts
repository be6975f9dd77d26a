/**
 * Content blocks of the Anthropic Messages API, the subset the loop reads and writes.
 *
 * Schemas are `looseObject` on purpose: the API adds fields (citations, cache metadata) and a
 * response we can still use must never be rejected for carrying more than we know about.
 */
import { z } from 'zod';

export const cacheControlSchema = z.looseObject({ type: z.literal('ephemeral') });

export const textBlockSchema = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
  cache_control: cacheControlSchema.optional(),
});

export const thinkingBlockSchema = z.looseObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.string(),
});

export const redactedThinkingBlockSchema = z.looseObject({
  type: z.literal('redacted_thinking'),
  data: z.string(),
});

export const toolUseBlockSchema = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  /** Always a JSON object on the wire: the API rejects any other input in history. */
  input: z.record(z.string(), z.unknown()),
  cache_control: cacheControlSchema.optional(),
});

export const imageBlockSchema = z.looseObject({
  type: z.literal('image'),
  source: z.union([
    z.looseObject({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
    z.looseObject({ type: z.literal('url'), url: z.string() }),
  ]),
});

export const toolResultBlockSchema = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.union([textBlockSchema, imageBlockSchema]))]).optional(),
  is_error: z.boolean().optional(),
  cache_control: cacheControlSchema.optional(),
});

export const contentBlockSchema = z.discriminatedUnion('type', [
  textBlockSchema,
  thinkingBlockSchema,
  redactedThinkingBlockSchema,
  toolUseBlockSchema,
  toolResultBlockSchema,
  imageBlockSchema,
]);

export type TextBlock = z.infer<typeof textBlockSchema>;
export type ThinkingBlock = z.infer<typeof thinkingBlockSchema>;
export type RedactedThinkingBlock = z.infer<typeof redactedThinkingBlockSchema>;
export type ToolUseBlock = z.infer<typeof toolUseBlockSchema>;
export type ToolResultBlock = z.infer<typeof toolResultBlockSchema>;
export type ImageBlock = z.infer<typeof imageBlockSchema>;
export type ContentBlock = z.infer<typeof contentBlockSchema>;

/** Blocks a model may produce in an assistant message. */
export type AssistantContentBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock;

export const messageParamSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(contentBlockSchema)]),
});
export type MessageParam = z.infer<typeof messageParamSchema>;

export const stopReasonSchema = z.enum([
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'pause_turn',
  'refusal',
]);
export type StopReason = z.infer<typeof stopReasonSchema>;

export const usageSchema = z.looseObject({
  input_tokens: z.number().int().nonnegative().optional(),
  output_tokens: z.number().int().nonnegative().optional(),
  cache_creation_input_tokens: z.number().int().nonnegative().nullable().optional(),
  cache_read_input_tokens: z.number().int().nonnegative().nullable().optional(),
});
export type Usage = z.infer<typeof usageSchema>;

/** A complete assistant message, as the non-streaming API returns it and as assembly produces it. */
export const assistantMessageSchema = z.looseObject({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string(),
  content: z.array(contentBlockSchema),
  stop_reason: stopReasonSchema.nullable(),
  stop_sequence: z.string().nullable().optional(),
  usage: usageSchema,
});
/**
 * Written out rather than `Omit<z.infer<...>, 'content'>`: `Omit` over a loose object collapses
 * the known keys into its index signature, which typed `usage`, `stop_reason`, ... as `unknown`.
 */
export interface AssistantMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: AssistantContentBlock[];
  stop_reason: StopReason | null;
  stop_sequence?: string | null | undefined;
  usage: Usage;
}
