/**
 * Content blocks of the Anthropic Messages API, the subset the loop reads and writes.
 *
 * Schemas are `looseObject` on purpose: the API adds fields (citations, cache metadata) and a
 * response we can still use must never be rejected for carrying more than we know about.
 */
import { z } from 'zod';
import { serverBlockSchemas, type ServerBlock } from './serverBlocks.js';

export * from './serverBlocks.js';

/** Prompt caching: a breakpoint after this block. */
export interface CacheControl {
  readonly type: 'ephemeral';
  readonly ttl?: '5m' | '1h';
}

/*
 * The block types are written out, exact and readonly: a misspelt field (`.txet`) does not
 * compile. The schemas stay loose at run time (fields the API adds are kept and replayed) but are
 * typed as the exact blocks, so the extra fields never widen a type.
 */
export interface TextBlock {
  readonly type: 'text';
  readonly text: string;
  readonly cache_control?: CacheControl | undefined;
  /** Citations the API attached (kept as sent). */
  readonly citations?: readonly unknown[] | null | undefined;
}
export interface ThinkingBlock {
  readonly type: 'thinking';
  readonly thinking: string;
  readonly signature: string;
}
export interface RedactedThinkingBlock {
  readonly type: 'redacted_thinking';
  readonly data: string;
}
export interface ToolUseBlock {
  readonly type: 'tool_use';
  readonly id: string;
  readonly name: string;
  /** Always a JSON object on the wire: the API rejects any other input in history. */
  readonly input: Readonly<Record<string, unknown>>;
  readonly cache_control?: CacheControl | undefined;
}
export interface ImageBlock {
  readonly type: 'image';
  readonly source:
    | { readonly type: 'base64'; readonly media_type: string; readonly data: string }
    | { readonly type: 'url'; readonly url: string };
}
export interface ToolResultBlock {
  readonly type: 'tool_result';
  readonly tool_use_id: string;
  readonly content?: string | readonly (TextBlock | ImageBlock)[] | undefined;
  readonly is_error?: boolean | undefined;
  readonly cache_control?: CacheControl | undefined;
}

const cacheControlObject = z.looseObject({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() });
export const cacheControlSchema = cacheControlObject as unknown as z.ZodType<CacheControl>;

const textBlockObject = z.looseObject({
  type: z.literal('text'),
  text: z.string(),
  cache_control: cacheControlObject.optional(),
});
export const textBlockSchema = textBlockObject as unknown as z.ZodType<TextBlock>;

const thinkingBlockObject = z.looseObject({
  type: z.literal('thinking'),
  thinking: z.string(),
  signature: z.string(),
});

const redactedThinkingBlockObject = z.looseObject({
  type: z.literal('redacted_thinking'),
  data: z.string(),
});

const toolUseBlockObject = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
  cache_control: cacheControlObject.optional(),
});

const imageBlockObject = z.looseObject({
  type: z.literal('image'),
  source: z.union([
    z.looseObject({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
    z.looseObject({ type: z.literal('url'), url: z.string() }),
  ]),
});

const toolResultBlockObject = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.union([textBlockObject, imageBlockObject]))]).optional(),
  is_error: z.boolean().optional(),
  cache_control: cacheControlObject.optional(),
});

const knownBlockSchemas = [
  textBlockObject,
  thinkingBlockObject,
  redactedThinkingBlockObject,
  toolUseBlockObject,
  toolResultBlockObject,
  imageBlockObject,
  ...serverBlockSchemas,
] as const;

/** Every block type this version has a schema for. */
export const KNOWN_BLOCK_TYPES: ReadonlySet<string> = new Set(
  knownBlockSchemas.flatMap((schema): string[] => {
    const type = schema.shape.type;
    return 'options' in type ? [...type.options] : [type.value];
  }),
);

/** Whether `type` is one this version has a schema for (false: an {@link OtherBlock}). */
export function isKnownBlockType(type: string): boolean {
  return KNOWN_BLOCK_TYPES.has(type);
}

/**
 * A block of a type this version does not know (documents, search results, whatever the API adds
 * next): any object with a string `type` that is not a known one, kept whole. A malformed known
 * block (a `text` without text) is still rejected, because its type is known.
 */
export const otherBlockSchema = z
  .looseObject({ type: z.string() })
  // Reported at the block itself: a known type's own, deeper issues then say what is wrong.
  .refine((block) => !KNOWN_BLOCK_TYPES.has(block.type), { message: 'a block of a known type with missing or wrong fields', abort: true });

/**
 * Block types the Messages API documents for requests beyond the ones typed here (documents,
 * search results, tool references, ...): what a request validator accepts besides the known ones.
 * The protocol schemas accept any type (a newer API's block must survive a round trip); a
 * validator that plays the API rejects the rest, as the API would.
 */
export const OTHER_API_BLOCK_TYPES: ReadonlySet<string> = new Set(['document', 'search_result', 'tool_reference', 'web_search_result']);

/** Whether the Messages API takes a block of this type in a request. */
export function isApiBlockType(type: string): boolean {
  return KNOWN_BLOCK_TYPES.has(type) || OTHER_API_BLOCK_TYPES.has(type);
}

/** The run-time shape of a block of a type this version does not know (see `contentBlockSchema`). */
export interface OtherBlock {
  readonly type: string;
  readonly [field: string]: unknown;
}


export type ContentBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock | ToolResultBlock | ImageBlock | ServerBlock;

/** Blocks a model may produce in an assistant message. */
export type AssistantContentBlock = TextBlock | ThinkingBlock | RedactedThinkingBlock | ToolUseBlock | ServerBlock;

/**
 * Any content block. Typed as the known union: TypeScript cannot narrow a union with an open
 * `type: string` member, so a block of an unknown type is accepted, kept and replayed at run time
 * without being named in the type (see {@link OtherBlock}). Code that switches over `type` must
 * pass the default case through, never reject it.
 */
export const contentBlockSchema = z.union([
  z.discriminatedUnion('type', [...knownBlockSchemas]),
  otherBlockSchema,
]) as unknown as z.ZodType<ContentBlock>;

export const messageParamSchema = z.looseObject({
  role: z.enum(['user', 'assistant']),
  content: z.union([z.string(), z.array(contentBlockSchema).readonly()]),
});
export interface MessageParam {
  readonly role: 'user' | 'assistant';
  /** Readonly: a tool batch's results (or any block list) go in without a copy. */
  readonly content: string | readonly ContentBlock[];
  /** Fields a stored message carries beside role and content (kept as read). */
  readonly [field: string]: unknown;
}

/** The stop reasons this version acts on; the API may send others (kept as strings, see `stopReasonSchema`). */
export const KNOWN_STOP_REASONS = [
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
] as const;
export type KnownStopReason = (typeof KNOWN_STOP_REASONS)[number];
/** A known stop reason, or a newer one as the API spelled it (the loop ends the turn with a warning). */
export type StopReason = KnownStopReason | (string & {});
/** Any string: a stop reason added after this version must end the turn, not fail the stream. */
export const stopReasonSchema: z.ZodType<StopReason> = z.string();

const tokenCount = z.number().int().nonnegative();
export const usageSchema = z.looseObject({
  // Null in some message_delta events (the start's count stands), so null is accepted and ignored.
  input_tokens: tokenCount.nullable().optional(),
  output_tokens: tokenCount.nullable().optional(),
  cache_creation_input_tokens: tokenCount.nullable().optional(),
  cache_read_input_tokens: tokenCount.nullable().optional(),
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
 * The optional fields are the ones the API sends only for some requests; assembly puts them where
 * the non-streaming body has them.
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
  /** The code-execution container (`{ id, expires_at, ... }`): the next request must name its id. */
  container?: { readonly id: string; readonly [field: string]: unknown } | null | undefined;
  /** What context management (server-side edits, compaction) did to this request. */
  context_management?: unknown;
  /** Details of the stop (e.g. why a `refusal`), null when there are none. */
  stop_details?: unknown;
}
