/**
 * Server-sent stream events of the Messages API.
 *
 * Decoding is two-step on purpose: `streamEventSchema` covers the event types we know; an event
 * whose `type` we do not know is not an error (the API adds new ones) and is reported as a debug
 * event by the decoder instead. Block and delta types are an open set: unknown ones are passed on
 * and kept by assembly (SPEC §14).
 */
import { z } from 'zod';
import { assistantMessageSchema, stopReasonSchema, usageSchema } from './content.js';
import { apiErrorBodySchema } from './errors.js';

/**
 * A content block as announced by `content_block_start`, before any delta. The four blocks the
 * loop reads while they stream are checked here; every other type (server tool calls and
 * results, compaction, types newer than this version) is any object with a string `type`, kept
 * whole as the start of its block (its deltas are applied generically, see the reducer).
 */
export const coreBlockStartSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text'), text: z.string() }),
  z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().optional() }),
  z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() }),
  z.looseObject({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown().optional() }),
]);
export type CoreBlockStart = z.infer<typeof coreBlockStartSchema>;
/** Block types whose start `coreBlockStartSchema` checks. */
export const CORE_BLOCK_TYPES: ReadonlySet<string> = new Set(
  coreBlockStartSchema.options.map((option) => option.shape.type.value),
);
export const otherBlockStartSchema = z.looseObject({
  type: z.string().refine((type) => !CORE_BLOCK_TYPES.has(type), { message: 'a core block start with missing or wrong fields', abort: true }),
});
/** The start of a block of any other type: its fields as sent. */
export interface OtherBlockStart {
  readonly type: string;
  readonly [field: string]: unknown;
}
/** Typed as the core union for narrowing; other types arrive as {@link OtherBlockStart} (see `isCoreBlockStart`). */
export type BlockStart = CoreBlockStart;
export const blockStartSchema = z.union([coreBlockStartSchema, otherBlockStartSchema]) as unknown as z.ZodType<BlockStart>;

/** Whether a block start is one of the four core types (the others are kept generically). */
export function isCoreBlockStart(start: { readonly type: string }): start is CoreBlockStart {
  return CORE_BLOCK_TYPES.has(start.type);
}

export const knownDeltaSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text_delta'), text: z.string() }),
  z.looseObject({ type: z.literal('input_json_delta'), partial_json: z.string() }),
  z.looseObject({ type: z.literal('thinking_delta'), thinking: z.string() }),
  z.looseObject({ type: z.literal('signature_delta'), signature: z.string() }),
  z.looseObject({ type: z.literal('citations_delta'), citation: z.unknown() }),
]);
export type KnownDelta = z.infer<typeof knownDeltaSchema>;
/**
 * A delta of a type this version does not know (`compaction_delta`, and whatever comes next): its
 * fields are applied to the block generically (strings appended, the rest set).
 */
export interface OtherDelta {
  readonly type: string;
  readonly [field: string]: unknown;
}
/** Typed as the known union for narrowing; others arrive as {@link OtherDelta} (see `KNOWN_DELTA_TYPES`). */
export type Delta = KnownDelta;
export const deltaSchema = knownDeltaSchema;

export const messageStartEventSchema = z.looseObject({
  type: z.literal('message_start'),
  // Usually empty content and a null stop_reason, but programmatic tool calling sends a whole
  // message here (content, stop_reason, container) followed directly by message_stop.
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
  // `container` and `stop_details` arrive inside `delta`, `context_management` beside it; all kept.
  delta: z.looseObject({
    stop_reason: stopReasonSchema.nullable().optional(),
    stop_sequence: z.string().nullable().optional(),
    container: z.looseObject({ id: z.string() }).nullable().optional(),
    stop_details: z.unknown().optional(),
  }),
  usage: usageSchema.optional(),
  context_management: z.unknown().optional(),
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
