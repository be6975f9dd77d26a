/**
 * Server-sent stream events of the Messages API.
 *
 * Decoding is two-step on purpose: `streamEventSchemas().streamEventSchema` covers the event types we know; an event
 * whose `type` we do not know is not an error (the API adds new ones) and is reported as a debug
 * event by the decoder instead. Block and delta types are an open set: unknown ones are passed on
 * and kept by assembly (SPEC §14).
 */
import { z } from 'zod';
import { assistantMessageSchema, stopReasonSchema, usageSchema } from './content.js';
import { apiErrorBodySchema } from './errors.js';
import { lazySchema } from '../util/lazySchema.js';

/**
 * The schemas of the stream, built at their first use (a response's first event) rather than
 * when the command loads: ~60 zod constructions, before the first request of every run otherwise
 * (issue 20 §3; util/lazySchema.ts). The same objects at every call.
 */
export const streamEventSchemas = lazySchema(() => {
  /**
   * A content block as announced by `content_block_start`, before any delta. The four blocks the
   * loop reads while they stream are checked here; every other type (server tool calls and
   * results, compaction, types newer than this version) is any object with a string `type`, kept
   * whole as the start of its block (its deltas are applied generically, see the reducer).
   */
  const coreBlockStartSchema = z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('text'), text: z.string() }),
    z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string().optional() }),
    z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() }),
    z.looseObject({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown().optional() }),
  ]);
  const otherBlockStartSchema = z.looseObject({
    type: z.string().refine((type) => !CORE_BLOCK_TYPES.has(type), { message: 'a core block start with missing or wrong fields', abort: true }),
  });
  // Typed as the core union for narrowing; other types arrive as OtherBlockStart (see `isCoreBlockStart`).
  const blockStartSchema = z.union([coreBlockStartSchema, otherBlockStartSchema]) as unknown as z.ZodType<z.infer<typeof coreBlockStartSchema>>;

  const knownDeltaSchema = z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('text_delta'), text: z.string() }),
    z.looseObject({ type: z.literal('input_json_delta'), partial_json: z.string() }),
    z.looseObject({ type: z.literal('thinking_delta'), thinking: z.string() }),
    z.looseObject({ type: z.literal('signature_delta'), signature: z.string() }),
    z.looseObject({ type: z.literal('citations_delta'), citation: z.unknown() }),
  ]);

  const messageStartEventSchema = z.looseObject({
    type: z.literal('message_start'),
    // Usually empty content and a null stop_reason, but programmatic tool calling sends a whole
    // message here (content, stop_reason, container) followed directly by message_stop.
    message: assistantMessageSchema,
  });
  const contentBlockStartEventSchema = z.looseObject({
    type: z.literal('content_block_start'),
    index: z.number().int().nonnegative(),
    content_block: blockStartSchema,
  });
  const contentBlockDeltaEventSchema = z.looseObject({
    type: z.literal('content_block_delta'),
    index: z.number().int().nonnegative(),
    delta: knownDeltaSchema,
  });
  const contentBlockStopEventSchema = z.looseObject({
    type: z.literal('content_block_stop'),
    index: z.number().int().nonnegative(),
  });
  const messageDeltaEventSchema = z.looseObject({
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
  const messageStopEventSchema = z.looseObject({ type: z.literal('message_stop') });
  const pingEventSchema = z.looseObject({ type: z.literal('ping') });
  const errorEventSchema = z.looseObject({
    type: z.literal('error'),
    error: apiErrorBodySchema.shape.error,
  });

  const streamEventSchema = z.discriminatedUnion('type', [
    messageStartEventSchema,
    contentBlockStartEventSchema,
    contentBlockDeltaEventSchema,
    contentBlockStopEventSchema,
    messageDeltaEventSchema,
    messageStopEventSchema,
    pingEventSchema,
    errorEventSchema,
  ]);
  return {
    coreBlockStartSchema,
    otherBlockStartSchema,
    knownDeltaSchema,
    messageStartEventSchema,
    contentBlockStartEventSchema,
    contentBlockDeltaEventSchema,
    contentBlockStopEventSchema,
    messageDeltaEventSchema,
    messageStopEventSchema,
    pingEventSchema,
    errorEventSchema,
    streamEventSchema,
    blockStartSchema,
  };
});
type Schemas = ReturnType<typeof streamEventSchemas>;

export type CoreBlockStart = z.infer<Schemas['coreBlockStartSchema']>;

/** Block types whose start the core schema checks (a test compares them with its options). */
export const CORE_BLOCK_TYPES: ReadonlySet<string> = new Set(['text', 'thinking', 'redacted_thinking', 'tool_use']);
/** The start of a block of any other type: its fields as sent. */
export interface OtherBlockStart {
  readonly type: string;
  readonly [field: string]: unknown;
}
/** Typed as the core union for narrowing; other types arrive as {@link OtherBlockStart} (see `isCoreBlockStart`). */
export type BlockStart = CoreBlockStart;

/** Whether a block start is one of the four core types (the others are kept generically). */
export function isCoreBlockStart(start: { readonly type: string }): start is CoreBlockStart {
  return CORE_BLOCK_TYPES.has(start.type);
}

export type KnownDelta = z.infer<Schemas['knownDeltaSchema']>;
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

export type MessageStartEvent = z.infer<Schemas['messageStartEventSchema']>;
export type ContentBlockStartEvent = z.infer<Schemas['contentBlockStartEventSchema']>;
export type ContentBlockDeltaEvent = z.infer<Schemas['contentBlockDeltaEventSchema']>;
export type ContentBlockStopEvent = z.infer<Schemas['contentBlockStopEventSchema']>;
export type MessageDeltaEvent = z.infer<Schemas['messageDeltaEventSchema']>;
export type MessageStopEvent = z.infer<Schemas['messageStopEventSchema']>;
export type PingEvent = z.infer<Schemas['pingEventSchema']>;
export type ErrorEvent = z.infer<Schemas['errorEventSchema']>;
export type StreamEvent = z.infer<Schemas['streamEventSchema']>;

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
