/**
 * Server-sent stream events of the Messages API.
 *
 * Decoding is two-step on purpose: `streamEventSchema` covers the event types we know; an event
 * whose `type` we do not know is not an error (the API adds new ones) and is reported as a debug
 * event by the decoder instead. The same holds for delta types inside `content_block_delta`.
 */
import { z } from 'zod';
import { assistantMessageSchema, stopReasonSchema, usageSchema } from './content.js';
import { apiErrorBodySchema } from './errors.js';

/** A content block as announced by `content_block_start`, before any delta. */
export const blockStartSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().optional() }),
  z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() }),
  z.looseObject({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown().optional() }),
]);
export type BlockStart = z.infer<typeof blockStartSchema>;

export const deltaSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text_delta'), text: z.string() }),
  z.looseObject({ type: z.literal('input_json_delta'), partial_json: z.string() }),
  z.looseObject({ type: z.literal('thinking_delta'), thinking: z.string() }),
  z.looseObject({ type: z.literal('signature_delta'), signature: z.string() }),
  z.looseObject({ type: z.literal('citations_delta'), citation: z.unknown() }),
]);
export type Delta = z.infer<typeof deltaSchema>;

export const messageStartEventSchema = z.looseObject({
  type: z.literal('message_start'),
  // The message at start has empty content and a null stop_reason; reuse the full shape.
  message: assistantMessageSchema,
});
export const contentBlockStartEventSchema = z.looseObject({
  type: z.literal('content_block_start'),
  index: z.number().int().nonnegative(),
  content_block: blockStartSchema,
});
export const contentBlockDeltaEventSchema = z.looseObject({
  type: z.literal('content_block_delta'),
  index: z.number().int().nonnegative(),
  delta: deltaSchema,
});
export const contentBlockStopEventSchema = z.looseObject({
  type: z.literal('content_block_stop'),
  index: z.number().int().nonnegative(),
});
export const messageDeltaEventSchema = z.looseObject({
  type: z.literal('message_delta'),
  delta: z.looseObject({
    stop_reason: stopReasonSchema.nullable().optional(),
    stop_sequence: z.string().nullable().optional(),
  }),
  usage: usageSchema.optional(),
});
export const messageStopEventSchema = z.looseObject({ type: z.literal('message_stop') });
export const pingEventSchema = z.looseObject({ type: z.literal('ping') });
export const errorEventSchema = z.looseObject({
  type: z.literal('error'),
  error: apiErrorBodySchema.shape.error,
});

export const streamEventSchema = z.discriminatedUnion('type', [
  messageStartEventSchema,
  contentBlockStartEventSchema,
  contentBlockDeltaEventSchema,
  contentBlockStopEventSchema,
  messageDeltaEventSchema,
  messageStopEventSchema,
  pingEventSchema,
  errorEventSchema,
]);

export type MessageStartEvent = z.infer<typeof messageStartEventSchema>;
export type ContentBlockStartEvent = z.infer<typeof contentBlockStartEventSchema>;
export type ContentBlockDeltaEvent = z.infer<typeof contentBlockDeltaEventSchema>;
export type ContentBlockStopEvent = z.infer<typeof contentBlockStopEventSchema>;
export type MessageDeltaEvent = z.infer<typeof messageDeltaEventSchema>;
export type MessageStopEvent = z.infer<typeof messageStopEventSchema>;
export type PingEvent = z.infer<typeof pingEventSchema>;
export type ErrorEvent = z.infer<typeof errorEventSchema>;
export type StreamEvent = z.infer<typeof streamEventSchema>;

export const KNOWN_STREAM_EVENT_TYPES: ReadonlySet<string> = new Set([
  'message_start',
  'content_block_start',
  'content_block_delta',
  'content_block_stop',
  'message_delta',
  'message_stop',
  'ping',
  'error',
]);
export const KNOWN_DELTA_TYPES: ReadonlySet<string> = new Set([
  'text_delta',
  'input_json_delta',
  'thinking_delta',
  'signature_delta',
  'citations_delta',
]);
