/**
 * An MCP `tools/call` result as `tool_result` content: text stays text, images become image
 * blocks, embedded resources their text (or an image, or a note for other binary data),
 * resource links and audio a short note; `structuredContent` is shown as JSON when the server
 * sent no content blocks (servers that send both repeat the same data as text). Results longer
 * than `MAX_MCP_OUTPUT_TOKENS` are cut, with a note that says so.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ImageBlock, TextBlock } from '../protocol/content.js';
import { limitResultSize } from '../tools/renderResult.js';
import type { ToolResultContent } from '../tools/types.js';
import { CHARS_PER_TOKEN } from './limits.js';

type Block = TextBlock | ImageBlock;
type McpContent = CallToolResult['content'][number];

/** Images the Messages API accepts in a tool result; other media types are described instead. */
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

export function mcpContentToBlocks(result: Pick<CallToolResult, 'content' | 'structuredContent'>): Block[] {
  const blocks: Block[] = [];
  for (const item of result.content ?? []) blocks.push(blockOf(item));
  if (blocks.length === 0 && result.structuredContent !== undefined) {
    blocks.push({ type: 'text', text: JSON.stringify(result.structuredContent, null, 2) });
  }
  return blocks;
}

function blockOf(item: McpContent): Block {
  switch (item.type) {
    case 'text':
      return { type: 'text', text: item.text };
    case 'image':
      return IMAGE_TYPES.has(item.mimeType)
        ? { type: 'image', source: { type: 'base64', media_type: item.mimeType, data: item.data } }
        : { type: 'text', text: `[image of type ${item.mimeType} (${item.data.length} base64 characters) not shown: unsupported image type]` };
    case 'audio':
      return { type: 'text', text: `[audio of type ${item.mimeType} (${item.data.length} base64 characters) not shown]` };
    case 'resource_link':
      return { type: 'text', text: `[resource link: ${item.uri}${item.name ? ` (${item.name})` : ''}${item.mimeType ? `, ${item.mimeType}` : ''}]` };
    case 'resource': {
      const r = item.resource;
      if ('text' in r && typeof r.text === 'string') return { type: 'text', text: `[resource ${r.uri}]\n${r.text}` };
      const blob = 'blob' in r && typeof r.blob === 'string' ? r.blob : '';
      const mime = r.mimeType ?? 'application/octet-stream';
      if (IMAGE_TYPES.has(mime)) return { type: 'image', source: { type: 'base64', media_type: mime, data: blob } };
      return { type: 'text', text: `[resource ${r.uri}: ${mime}, ${blob.length} base64 characters not shown]` };
    }
    default: {
      // A content type newer than this client: say so rather than drop it silently.
      const unknownType = (item as { type?: unknown }).type;
      return { type: 'text', text: `[content of type ${JSON.stringify(unknownType)} not shown]` };
    }
  }
}

/** The result as tool_result content, cut to `maxOutputTokens` with a note naming the limit. */
export function renderMcpResult(result: Pick<CallToolResult, 'content' | 'structuredContent'>, maxOutputTokens: number): ToolResultContent {
  const blocks = mcpContentToBlocks(result);
  if (blocks.length === 0) return '(no output)';
  const content: ToolResultContent = blocks.length === 1 && blocks[0]!.type === 'text' ? blocks[0]!.text : blocks;
  const cut = limitResultSize(content, maxOutputTokens * CHARS_PER_TOKEN);
  if (cut === content) return content;
  const note = `[MCP output was longer than MAX_MCP_OUTPUT_TOKENS (${maxOutputTokens} tokens) and was cut; ask the tool for less, e.g. a page or a filter]`;
  return typeof cut === 'string' ? `${cut}\n${note}` : [...cut, { type: 'text', text: note }];
}

/**
 * The result as data for programs (stream-json's `tool_use_result`, the SDK's `McpOutput`): the
 * server's `structuredContent` when it sent one, else its content as blocks, uncut (Claude Code
 * prints content-only results as the block array).
 */
export function mcpStructuredResult(result: Pick<CallToolResult, 'content' | 'structuredContent'>): unknown {
  return result.structuredContent ?? mcpContentToBlocks(result);
}

/** The text of an `isError` result, for the error tool_result. */
export function errorTextOf(result: Pick<CallToolResult, 'content' | 'structuredContent'>): string {
  const text = mcpContentToBlocks(result)
    .map((b) => (b.type === 'text' ? b.text : '[image]'))
    .join('\n');
  return text === '' ? 'the server reported an error without details' : text;
}
