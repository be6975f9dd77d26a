/**
 * Step 11 of a call: the tool's output as `tool_result` content, cut to the size limit.
 */
import type { ToolResultContent } from './types.js';
import { truncationMarker } from './errorTexts.js';

/** Default rendering: strings as they are, `undefined` as a short note, anything else as JSON. */
export function defaultRenderResult(output: unknown): ToolResultContent {
  if (typeof output === 'string') return output;
  if (output === undefined) return '(no output)';
  return JSON.stringify(output) ?? String(output);
}

/**
 * Cuts content longer than `limit` characters (text blocks counted together; images kept) and
 * appends a marker saying how many characters were cut.
 */
export function limitResultSize(content: ToolResultContent, limit: number | undefined): ToolResultContent {
  if (limit === undefined) return content;
  if (typeof content === 'string') {
    if (content.length <= limit) return content;
    return content.slice(0, limit) + truncationMarker(content.length - limit, limit);
  }
  let total = 0;
  for (const block of content) if (block.type === 'text') total += block.text.length;
  if (total <= limit) return content;
  let left = limit;
  const out: typeof content = [];
  for (const block of content) {
    if (block.type !== 'text') {
      out.push(block);
      continue;
    }
    if (left <= 0) continue;
    out.push(block.text.length <= left ? block : { ...block, text: block.text.slice(0, left) });
    left -= Math.min(left, block.text.length);
  }
  out.push({ type: 'text', text: truncationMarker(total - limit, limit).trimStart() });
  return out;
}
