/**
 * Layer 0, tool-result budget: a tool_result whose text is longer than its tool's
 * `maxResultSizeChars` is written to a file in the session directory and replaced, in the view,
 * by its beginning plus the file's absolute path and a sentence telling the model it can Read
 * the rest. Nothing is lost: the full text is on disk, and the original message is untouched.
 *
 * Each file is written once, named after the tool_use_id. Each message is examined once per
 * budget state (`processed`), so a long history costs one lookup per old message per call.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ContentBlock, ImageBlock, MessageParam, TextBlock, ToolResultBlock } from '../protocol/content.js';

/**
 * Options of {@link applyToolResultBudget}: each tool's size limit, where full results are stored, and
 * how much stays in view.
 */
export interface ToolResultBudgetOptions {
  /** The limit of a tool by name; undefined (or not finite) exempts the tool. */
  readonly maxResultSizeChars: (toolName: string) => number | undefined;
  /** Stores the full text and returns the absolute path it can be read from. */
  readonly store: (toolUseId: string, text: string) => string;
  /** Characters of the result kept in the view (default 2,000). */
  readonly previewChars?: number;
}

/** A tool result written to a file, and the size it had. */
export interface StoredToolResult {
  readonly toolUseId: string;
  readonly toolName: string;
  readonly path: string;
  readonly originalChars: number;
}

/** A result that should have been stored but could not be: it stays whole in the view. */
export interface UnstorableToolResult {
  readonly toolUseId: string;
  readonly error: string;
}

/** Per governor. Maps survive views that rebuild message objects; ids never repeat. */
export interface ToolResultBudgetState {
  /** Replaced blocks by tool_use_id, so a result is stored and rewritten only once. */
  readonly replacements: Map<string, ToolResultBlock>;
  /** Message objects already examined, with what they became (often themselves). */
  readonly processed: WeakMap<MessageParam, MessageParam>;
}

/** A fresh tool-result budget state: one per session, so each result is examined once. */
export function createToolResultBudgetState(): ToolResultBudgetState {
  return { replacements: new Map(), processed: new WeakMap() };
}

/** The view after the budget was applied, with what was stored or could not be. */
export interface ToolResultBudgetResult {
  /** The input array itself when nothing changed. */
  readonly messages: readonly MessageParam[];
  /** Results stored during this call (not the ones stored earlier). */
  readonly stored: readonly StoredToolResult[];
  readonly failed: readonly UnstorableToolResult[];
}

/** Characters of a stored result kept in the view when `previewChars` is not given. */
export const DEFAULT_PREVIEW_CHARS = 2_000;

/** Layer 0: writes each tool result longer than its tool's limit to a file and leaves its beginning and the file's path in the view. */
export function applyToolResultBudget(
  messages: readonly MessageParam[],
  state: ToolResultBudgetState,
  options: ToolResultBudgetOptions,
): ToolResultBudgetResult {
  let out: MessageParam[] | undefined;
  const stored: StoredToolResult[] = [];
  const failed: UnstorableToolResult[] = [];
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    let next = state.processed.get(message);
    if (next === undefined) {
      const failedBefore = failed.length;
      next = budgetMessage(message, messages[i - 1], state, options, stored, failed);
      // A message whose result could not be stored is examined again next time (disk may recover).
      if (failed.length === failedBefore) state.processed.set(message, next);
    }
    if (next !== message) {
      out ??= messages.slice();
      out[i] = next;
    }
  }
  return { messages: out ?? messages, stored, failed };
}

function budgetMessage(
  message: MessageParam,
  previous: MessageParam | undefined,
  state: ToolResultBudgetState,
  options: ToolResultBudgetOptions,
  stored: StoredToolResult[],
  failed: UnstorableToolResult[],
): MessageParam {
  if (message.role !== 'user' || typeof message.content === 'string') return message;
  let content: ContentBlock[] | undefined;
  let names: Map<string, string> | undefined;
  for (let k = 0; k < message.content.length; k++) {
    const block = message.content[k]!;
    if (block.type !== 'tool_result') continue;
    let replacement = state.replacements.get(block.tool_use_id);
    if (replacement === undefined) {
      names ??= toolNames(previous);
      const toolName = names.get(block.tool_use_id) ?? '';
      const limit = options.maxResultSizeChars(toolName);
      if (limit === undefined || !Number.isFinite(limit)) continue;
      const text = resultText(block);
      if (text.length <= limit) continue;
      let path: string;
      try {
        path = options.store(block.tool_use_id, text);
      } catch (error) {
        failed.push({ toolUseId: block.tool_use_id, error: error instanceof Error ? error.message : String(error) });
        continue;
      }
      replacement = previewBlock(block, text, limit, path, options.previewChars ?? DEFAULT_PREVIEW_CHARS);
      state.replacements.set(block.tool_use_id, replacement);
      stored.push({ toolUseId: block.tool_use_id, toolName, path, originalChars: text.length });
    }
    content ??= message.content.slice();
    content[k] = replacement;
  }
  return content ? { ...message, content } : message;
}

function resultText(block: ToolResultBlock): string {
  const content = block.content;
  if (content === undefined) return '';
  if (typeof content === 'string') return content;
  let text = '';
  for (const part of content) if (part.type === 'text') text += text === '' ? part.text : `\n${part.text}`;
  return text;
}

function previewBlock(block: ToolResultBlock, text: string, limit: number, path: string, previewChars: number): ToolResultBlock {
  const preview = text.slice(0, Math.max(0, Math.min(previewChars, limit)));
  const note =
    `\n\n[Output truncated: this result has ${text.length} characters, more than the ${limit} allowed in context. ` +
    `The first ${preview.length} are shown above. The complete output is saved in the file ${path}; ` +
    `use the Read tool on that path (with an offset and limit for long files) to see the rest.]`;
  const images: ImageBlock[] =
    typeof block.content === 'string' || block.content === undefined
      ? []
      : block.content.filter((part): part is ImageBlock => part.type === 'image');
  if (images.length === 0) return { ...block, content: preview + note };
  const textBlock: TextBlock = { type: 'text', text: preview + note };
  return { ...block, content: [textBlock, ...images] };
}

function toolNames(assistant: MessageParam | undefined): Map<string, string> {
  const names = new Map<string, string>();
  if (assistant && assistant.role === 'assistant' && typeof assistant.content !== 'string') {
    for (const block of assistant.content) if (block.type === 'tool_use') names.set(block.id, block.name);
  }
  return names;
}

/**
 * The default store: `<directory>/tool-results/<tool_use_id>.txt`, written once (an existing
 * file is left as it is: the same id always carries the same result).
 */
export function createFileResultStore(directory: string): (toolUseId: string, text: string) => string {
  const folder = resolve(directory, 'tool-results');
  let created = false;
  return (toolUseId, text) => {
    if (!created) {
      mkdirSync(folder, { recursive: true, mode: 0o700 });
      created = true;
    }
    const path = join(folder, `${fileNameFor(toolUseId)}.txt`);
    try {
      writeFileSync(path, text, { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    return path;
  };
}

/**
 * A file name for a tool_use_id, which the server chooses: only `[A-Za-z0-9_-]`, at most 100
 * characters, so `../../x` can never leave the folder. An id that had to be changed gets a hash
 * of the original appended, so `a/b` and `a_b` never share (and never overwrite) one file.
 */
function fileNameFor(toolUseId: string): string {
  const safe = toolUseId.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 100);
  if (safe === toolUseId && safe !== '') return safe;
  return `${safe}-${createHash('sha256').update(toolUseId).digest('hex').slice(0, 16)}`;
}
