/**
 * Content blocks of the Anthropic Messages API, the subset the loop reads and writes.
 *
 * Schemas are `looseObject` on purpose: the API adds fields (citations, cache metadata) and a
 * response we can still use must never be rejected for carrying more than we know about.
 */
import { z } from 'zod';
import { lazySchema } from '../util/lazySchema.js';
import { SERVER_TOOL_RESULT_TYPES, serverBlockSchemas, type ServerBlock } from './serverBlocks.js';

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

/*
 * Every field below is a getter (zod 4's deferred shape): an object schema is built at load, its
 * fields at its first parse (or `.shape` read). A `-p` run loads this module before its first
 * request but parses few of these blocks, most of them never (issue 20 §3). The schemas are the
 * same classes and parse the same: zod resolves the getters once, in order, into a plain shape.
 */
const cacheControlObject = z.looseObject({
  get type() {
    return z.literal('ephemeral');
  },
  get ttl() {
    return z.enum(['5m', '1h']).optional();
  },
});
export const cacheControlSchema = cacheControlObject as unknown as z.ZodType<CacheControl>;

const textBlockObject = z.looseObject({
  get type() {
    return z.literal('text');
  },
  get text() {
    return z.string();
  },
  get cache_control() {
    return cacheControlObject.optional();
  },
});
export const textBlockSchema = textBlockObject as unknown as z.ZodType<TextBlock>;

const thinkingBlockObject = z.looseObject({
  get type() {
    return z.literal('thinking');
  },
  get thinking() {
    return z.string();
  },
  get signature() {
    return z.string();
  },
});

const redactedThinkingBlockObject = z.looseObject({
  get type() {
    return z.literal('redacted_thinking');
  },
  get data() {
    return z.string();
  },
});

const toolUseBlockObject = z.looseObject({
  get type() {
    return z.literal('tool_use');
  },
  get id() {
    return z.string();
  },
  get name() {
    return z.string();
  },
  get input() {
    return z.record(z.string(), z.unknown());
  },
  get cache_control() {
    return cacheControlObject.optional();
  },
});

const imageBlockObject = z.looseObject({
  get type() {
    return z.literal('image');
  },
  get source() {
    return z.union([
      z.looseObject({ type: z.literal('base64'), media_type: z.string(), data: z.string() }),
      z.looseObject({ type: z.literal('url'), url: z.string() }),
    ]);
  },
});

const toolResultBlockObject = z.looseObject({
  get type() {
    return z.literal('tool_result');
  },
  get tool_use_id() {
    return z.string();
  },
  get content() {
    return z.union([z.string(), z.array(z.union([textBlockObject, imageBlockObject]))]).optional();
  },
  get is_error() {
    return z.boolean().optional();
  },
  get cache_control() {
    return cacheControlObject.optional();
  },
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

/**
 * Every block type this version has a schema for: written out, because reading the schemas'
 * `type` fields would build all their fields at load (test/protocol/lazyShapes.test.ts checks
 * the list against the schemas).
 */
export const KNOWN_BLOCK_TYPES: ReadonlySet<string> = new Set([
  'text',
  'thinking',
  'redacted_thinking',
  'tool_use',
  'tool_result',
  'image',
  'server_tool_use',
  ...SERVER_TOOL_RESULT_TYPES,
  'mcp_tool_use',
  'mcp_tool_result',
  'container_upload',
  'compaction',
]);

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
  .looseObject({
    get type() {
      return z.string();
    },
  })
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
  get role() {
    return z.enum(['user', 'assistant']);
  },
  get content() {
    return z.union([z.string(), z.array(contentBlockSchema).readonly()]);
  },
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

/** Shared by the four fields, built with the first of them. */
const tokenCount = lazySchema(() => z.number().int().nonnegative());
// Null in some message_delta events (the start's count stands), so null is accepted and ignored.
export const usageSchema = z.looseObject({
  get input_tokens() {
    return tokenCount().nullable().optional();
  },
  get output_tokens() {
    return tokenCount().nullable().optional();
  },
  get cache_creation_input_tokens() {
    return tokenCount().nullable().optional();
  },
  get cache_read_input_tokens() {
    return tokenCount().nullable().optional();
  },
});
export type Usage = z.infer<typeof usageSchema>;

/** A complete assistant message, as the non-streaming API returns it and as assembly produces it. */
export const assistantMessageSchema = z.looseObject({
  get id() {
    return z.string();
  },
  get type() {
    return z.literal('message');
  },
  get role() {
    return z.literal('assistant');
  },
  get model() {
    return z.string();
  },
  get content() {
    return z.array(contentBlockSchema);
  },
  get stop_reason() {
    return stopReasonSchema.nullable();
  },
  get stop_sequence() {
    return z.string().nullable().optional();
  },
  get usage() {
    return usageSchema;
  },
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
