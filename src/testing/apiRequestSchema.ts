/**
 * The request body of `POST /v1/messages` as the real API accepts it: what the scripted server
 * validates against. Deliberately separate from the library's own `messagesRequestSchema` (the
 * subset rxagent sends): the server stands in for the API, so it must accept what any real client
 * sends (the Anthropic SDK, the Vercel AI SDK, ...) and refuse what the API refuses, no more.
 *
 * Objects are loose (the API grows fields; an unknown field is not our business) but block and
 * tool `type` tags are checked against the ones the API knows, as the API does.
 */
import { z } from 'zod';

const cacheControl = z.looseObject({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() }).nullable().optional();
const inputObject = z.record(z.string(), z.unknown());

const textBlock = z.looseObject({ type: z.literal('text'), text: z.string(), cache_control: cacheControl, citations: z.array(z.unknown()).nullable().optional() });
const imageBlock = z.looseObject({
  type: z.literal('image'),
  source: z.discriminatedUnion('type', [
    z.looseObject({ type: z.literal('base64'), media_type: z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp']), data: z.string() }),
    z.looseObject({ type: z.literal('url'), url: z.string() }),
    z.looseObject({ type: z.literal('file'), file_id: z.string() }),
  ]),
  cache_control: cacheControl,
});
const documentBlock = z.looseObject({ type: z.literal('document'), source: z.looseObject({ type: z.string() }), cache_control: cacheControl });
const searchResultBlock = z.looseObject({
  type: z.literal('search_result'),
  source: z.string(),
  title: z.string(),
  content: z.array(textBlock),
  cache_control: cacheControl,
});
const toolReferenceBlock = z.looseObject({ type: z.literal('tool_reference'), tool_name: z.string(), cache_control: cacheControl });

/** Result blocks of the API's own (server) tools: the model wrote them, a client sends them back as they were. */
const SERVER_TOOL_RESULT_TYPES = [
  'web_search_tool_result',
  'web_fetch_tool_result',
  'code_execution_tool_result',
  'bash_code_execution_tool_result',
  'text_editor_code_execution_tool_result',
  'tool_search_tool_result',
] as const;
const serverToolResultBlocks = SERVER_TOOL_RESULT_TYPES.map((type) =>
  z.looseObject({ type: z.literal(type), tool_use_id: z.string(), content: z.unknown(), cache_control: cacheControl }),
);

const contentBlock = z.discriminatedUnion('type', [
  textBlock,
  imageBlock,
  documentBlock,
  searchResultBlock,
  z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() }),
  z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() }),
  z.looseObject({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: inputObject, cache_control: cacheControl }),
  z.looseObject({
    type: z.literal('tool_result'),
    tool_use_id: z.string(),
    content: z
      .union([z.string(), z.array(z.discriminatedUnion('type', [textBlock, imageBlock, searchResultBlock, documentBlock, toolReferenceBlock]))])
      .optional(),
    is_error: z.boolean().optional(),
    cache_control: cacheControl,
  }),
  z.looseObject({ type: z.literal('server_tool_use'), id: z.string(), name: z.string(), input: inputObject, cache_control: cacheControl }),
  ...serverToolResultBlocks,
  z.looseObject({ type: z.literal('container_upload'), file_id: z.string(), cache_control: cacheControl }),
]);

/**
 * The API's own tools, by versioned `type` tag, with the `name` each must carry (undefined: a
 * toolset without one). A definition with another type tag is refused, as the API refuses it.
 * The beta ones are accepted with or without their `anthropic-beta` header (the real API wants
 * the header; the scripted server records headers but does not gate on them).
 */
export const SERVER_TOOL_NAMES: Readonly<Record<string, string | undefined>> = {
  bash_20241022: 'bash',
  bash_20250124: 'bash',
  code_execution_20250522: 'code_execution',
  code_execution_20250825: 'code_execution',
  code_execution_20260120: 'code_execution',
  code_execution_20260521: 'code_execution',
  computer_20241022: 'computer',
  computer_20250124: 'computer',
  computer_20251124: 'computer',
  memory_20250818: 'memory',
  text_editor_20241022: 'str_replace_editor',
  text_editor_20250124: 'str_replace_editor',
  text_editor_20250429: 'str_replace_based_edit_tool',
  text_editor_20250728: 'str_replace_based_edit_tool',
  web_search_20250305: 'web_search',
  web_search_20260209: 'web_search',
  web_search_20260318: 'web_search',
  web_fetch_20250910: 'web_fetch',
  web_fetch_20260209: 'web_fetch',
  web_fetch_20260309: 'web_fetch',
  web_fetch_20260318: 'web_fetch',
  advisor_20260301: 'advisor',
  tool_search_tool_bm25_20251119: 'tool_search_tool_bm25',
  tool_search_tool_bm25: 'tool_search_tool_bm25',
  tool_search_tool_regex_20251119: 'tool_search_tool_regex',
  tool_search_tool_regex: 'tool_search_tool_regex',
  browser_toolset_20260801: undefined,
  computer_toolset_20260801: undefined,
  mcp_toolset: undefined,
};

const customTool = z.looseObject({
  type: z.literal('custom').nullable().optional(),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,128}$/, 'tool names are 1-128 letters, digits, "_" or "-"'),
  description: z.string().optional(),
  input_schema: z.looseObject({ type: z.literal('object') }),
  cache_control: cacheControl,
});
const serverTool = z
  .looseObject({ type: z.string(), name: z.string().optional(), cache_control: cacheControl })
  .superRefine((tool, ctx) => {
    if (!Object.hasOwn(SERVER_TOOL_NAMES, tool.type)) {
      ctx.addIssue({ code: 'custom', path: ['type'], message: `unknown tool type ${JSON.stringify(tool.type)} (a custom tool has no type, or "custom")` });
      return;
    }
    const name = SERVER_TOOL_NAMES[tool.type];
    if (name !== undefined && tool.name !== name) {
      ctx.addIssue({ code: 'custom', path: ['name'], message: `a ${tool.type} tool must be named "${name}", got ${JSON.stringify(tool.name)}` });
    }
  });
const toolDefinition = z.union([customTool, serverTool]);

/** One element of `messages` (also checked alone: the scripted server caches the verdict per message). */
export const apiMessageSchema = z.looseObject({ role: z.enum(['user', 'assistant']), content: z.union([z.string(), z.array(contentBlock)]) });

export const apiRequestSchema = z.looseObject({
  model: z.string().min(1),
  max_tokens: z.number().int().positive(),
  system: z.union([z.string(), z.array(textBlock)]).optional(),
  messages: z.array(apiMessageSchema),
  tools: z.array(toolDefinition).optional(),
  tool_choice: z
    .discriminatedUnion('type', [
      z.looseObject({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
      z.looseObject({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
      z.looseObject({ type: z.literal('tool'), name: z.string(), disable_parallel_tool_use: z.boolean().optional() }),
      z.looseObject({ type: z.literal('none') }),
    ])
    .optional(),
  thinking: z
    .discriminatedUnion('type', [
      z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().int().positive() }),
      z.looseObject({ type: z.literal('disabled') }),
      z.looseObject({ type: z.literal('adaptive') }),
      z.looseObject({ type: z.literal('between_tools') }),
    ])
    .optional(),
  cache_control: cacheControl,
  metadata: z.looseObject({ user_id: z.string().nullable().optional() }).optional(),
  stop_sequences: z.array(z.string()).optional(),
  temperature: z.number().min(0).max(1).optional(),
  top_p: z.number().min(0).max(1).optional(),
  top_k: z.number().int().nonnegative().optional(),
  stream: z.boolean().optional(),
});

/** Every field but `messages`: a body passes `apiRequestSchema` exactly when it passes this and each message passes `apiMessageSchema`. */
export const apiRequestFieldsSchema = apiRequestSchema.omit({ messages: true });
