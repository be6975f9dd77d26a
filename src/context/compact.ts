/**
 * Layer 3, compaction: summarize the older part of the history with one model call and build
 * the new view = a summary user message + the most recent messages verbatim.
 *
 * The older part is sent as a plain-text transcript in a single user message, not as the
 * original messages. That request is valid whatever the history holds (no tools are offered, so
 * tool_use blocks must not appear; thinking blocks are model-bound) and it is smaller: long tool
 * outputs are clipped and reasoning is left out.
 */
import { defer, map, reduce, type Observable } from 'rxjs';
import { ApiError } from '../errors.js';
import type { ContentBlock, MessageParam, TextBlock } from '../protocol/content.js';
import type { MessagesRequest } from '../protocol/request.js';
import type { MessagesClient, TransportOutput } from '../transport/types.js';
import { COMPACT_SYSTEM_PROMPT, COMPACT_USER_INSTRUCTION, summaryMessageText, transcriptIntro } from './compactPrompt.js';
import { estimateMessageTokens } from './tokens.js';
import { findKeptStart } from './turns.js';

/** Per-block clipping in the transcript: enough to know what a result said, not all of it. */
export const TRANSCRIPT_TOOL_RESULT_CHARS = 4_000;
export const TRANSCRIPT_TOOL_INPUT_CHARS = 2_000;

/** Where a compaction cuts the history: before `keptStart` is summarized, the rest is kept. */
export interface CompactionPlan {
  /** `messages[0..keptStart)` is summarized; `messages[keptStart..]` is kept verbatim. */
  readonly keptStart: number;
}

/** Where to cut, or undefined when the history is too short to compact (a single exchange). */
export function planCompaction(messages: readonly MessageParam[], keepRecentTokens: number): CompactionPlan | undefined {
  const keptStart = findKeptStart(messages, keepRecentTokens, estimateMessageTokens);
  return keptStart === undefined ? undefined : { keptStart };
}

/**
 * A readable transcript of `messages`, at most about `maxChars` long: when longer, the oldest
 * part is dropped (the recent past matters most to the summary). Linear in the history.
 */
export function renderTranscript(messages: readonly MessageParam[], maxChars: number): string {
  const parts: string[] = [];
  for (const message of messages) parts.push(renderMessage(message));
  let total = 0;
  let first = parts.length;
  while (first > 0 && total + parts[first - 1]!.length + 2 <= maxChars) total += parts[--first]!.length + 2;
  const kept = parts.slice(first).join('\n\n');
  return first > 0 ? `[The ${first} oldest messages were left out to fit the summarization request.]\n\n${kept}` : kept;
}

function renderMessage(message: MessageParam): string {
  const speaker = message.role === 'user' ? 'User' : 'Assistant';
  if (typeof message.content === 'string') return `${speaker}: ${message.content}`;
  const lines: string[] = [];
  for (const block of message.content) {
    const line = renderBlock(block);
    if (line !== undefined) lines.push(line);
  }
  return `${speaker}: ${lines.join('\n')}`;
}

function renderBlock(block: ContentBlock): string | undefined {
  switch (block.type) {
    case 'text':
      return block.text;
    case 'thinking':
    case 'redacted_thinking':
      return undefined;
    case 'tool_use':
      return `[called tool ${block.name} (${block.id}) with input ${clip(JSON.stringify(block.input), TRANSCRIPT_TOOL_INPUT_CHARS)}]`;
    case 'tool_result': {
      const content = block.content;
      let text = '';
      if (typeof content === 'string') text = content;
      else if (content) text = content.map((part) => (part.type === 'text' ? part.text : '[image]')).join('\n');
      const label = block.is_error ? 'error from' : 'result of';
      return `[${label} ${block.tool_use_id}: ${clip(text, TRANSCRIPT_TOOL_RESULT_CHARS)}]`;
    }
    case 'image':
      return '[image]';
    default:
      return undefined;
  }
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)} … [${text.length - max} more characters]`;
}

/** Options of `buildCompactionRequest`: the model, the summary's size and how much transcript it may read. */
export interface CompactionRequestOptions {
  readonly model: string;
  readonly maxTokens: number;
  /** Transcript size limit in characters. */
  readonly maxTranscriptChars: number;
  /** Replaces our summarization instructions (system prompt). */
  readonly instructions?: string;
}

/** The summarization request for `summarized`: no tools, no thinking, one user message. */
export function buildCompactionRequest(summarized: readonly MessageParam[], options: CompactionRequestOptions): MessagesRequest {
  const transcript = renderTranscript(summarized, options.maxTranscriptChars);
  return {
    model: options.model,
    max_tokens: options.maxTokens,
    system: options.instructions ?? COMPACT_SYSTEM_PROMPT,
    messages: [{ role: 'user', content: `${transcriptIntro()}${transcript}\n\n${COMPACT_USER_INSTRUCTION}` }],
  };
}

/** Thrown when the summarization call answered but gave nothing usable. */
export class EmptySummaryError extends Error {
  override readonly name = 'EmptySummaryError';
  constructor() {
    super('the summarization request returned no text');
  }
}

/**
 * One summarization call: the text of the response. Cold; unsubscribing aborts the request.
 * Errors: the client's `RxAgentError`s, an `ApiError` for an SSE error event, `EmptySummaryError`.
 */
export function requestSummary(client: MessagesClient, request: MessagesRequest): Observable<string> {
  return defer(() =>
    client.stream(request, { querySource: 'compact' }).pipe(
      reduce((text, output: TransportOutput) => text + summaryTextOf(output), ''),
      map((text) => {
        if (text.trim() === '') throw new EmptySummaryError();
        return text.trim();
      }),
    ),
  );
}

function summaryTextOf(output: TransportOutput): string {
  switch (output.type) {
    case 'content_block_start':
      return output.content_block.type === 'text' ? output.content_block.text : '';
    case 'content_block_delta':
      return output.delta.type === 'text_delta' ? output.delta.text : '';
    case 'error':
      throw new ApiError(undefined, output.error.type, output.error.message, false);
    default:
      return '';
  }
}

/**
 * The compacted view: the summary first, then `kept` verbatim. When `kept` starts with a user
 * prompt, the summary joins that message (two user messages in a row are invalid); when it
 * starts with an assistant message, the summary is a user message of its own.
 */
export function buildCompactedView(summary: string, kept: readonly MessageParam[]): MessageParam[] {
  const summaryBlock: TextBlock = { type: 'text', text: summaryMessageText(summary) };
  const first = kept[0];
  if (first === undefined || first.role === 'assistant') return [{ role: 'user', content: [summaryBlock] }, ...kept];
  const rest: ContentBlock[] =
    typeof first.content === 'string' ? (first.content === '' ? [] : [{ type: 'text', text: first.content }]) : [...first.content];
  const merged: MessageParam = { ...first, content: [summaryBlock, ...rest] };
  return [merged, ...kept.slice(1)];
}
