/**
 * Blocks assembled generically: every type but the four core ones (text, thinking,
 * redacted_thinking, tool_use). Server tool calls and results, MCP blocks, compaction and any type
 * newer than this version are kept as the `content_block_start` object plus what their deltas
 * carry, so the message holds them exactly as the non-streaming body would and the next request
 * can send them back unchanged (SPEC §14).
 *
 * How a delta lands on such a block, by its fields (never by the block's type, which may be new):
 * - `input_json_delta`: the chunks are joined and parsed once at the stop into `input` (the start
 *   carries `input: {}`), as for a client tool call;
 * - `citations_delta`: the citation is appended to `citations`;
 * - any other delta (`text_delta`, `compaction_delta`, a type newer than us): each field but
 *   `type` is applied: a string is appended to a string (or set where the field is null or
 *   absent), an array is appended to an array, anything else is set where the field is absent.
 *   A field that cannot be applied (an object onto a string, ...) leaves the block unchanged and
 *   the delta is reported with a warning, so nothing is silently lost or made up.
 */
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../util/jsonDepth.js';

/** An open block of a non-core type: its fields so far, and the raw tool input when it streams. */
export interface OpenOtherBlock {
  readonly type: 'other';
  readonly fields: Record<string, unknown>;
  /** `input_json_delta` chunks, joined and parsed at the stop. */
  inputChunks: string[] | undefined;
  receivedChars: number;
}

export function openOtherBlock(start: { readonly type: string }): OpenOtherBlock {
  return { type: 'other', fields: { ...start }, inputChunks: undefined, receivedChars: 0 };
}

/**
 * Applies one delta; returns why it could not be applied (the block is then unchanged), or
 * undefined when it was. `delta.type` is not needed: the fields say where each part goes.
 */
export function applyToOtherBlock(block: OpenOtherBlock, delta: Readonly<Record<string, unknown>>): string | undefined {
  switch (delta['type']) {
    case 'input_json_delta': {
      const chunk = delta['partial_json'] as string;
      (block.inputChunks ??= []).push(chunk);
      block.receivedChars += chunk.length;
      return undefined;
    }
    case 'citations_delta': {
      const citations = block.fields['citations'];
      if (citations !== undefined && citations !== null && !Array.isArray(citations)) return '"citations" is not a list';
      block.fields['citations'] = [...((citations as unknown[] | null | undefined) ?? []), delta['citation']];
      return undefined;
    }
    default:
      return applyFields(block.fields, delta);
  }
}

/**
 * Every field of `delta` but `type` onto `fields`, all or nothing: a delta half applied would
 * leave a block that matches neither what was sent nor what was there.
 */
export function applyFields(fields: Record<string, unknown>, delta: Readonly<Record<string, unknown>>): string | undefined {
  const updates: [string, unknown][] = [];
  for (const key of Object.keys(delta)) {
    if (key === 'type') continue;
    const value = delta[key];
    const current = fields[key];
    if (typeof value === 'string' && (typeof current === 'string' || current === null || current === undefined)) {
      updates.push([key, (current ?? '') + value]);
    } else if (Array.isArray(value) && (Array.isArray(current) || current === null || current === undefined)) {
      updates.push([key, [...((current as unknown[] | null | undefined) ?? []), ...value]]);
    } else if (current === undefined || current === null) {
      updates.push([key, value]);
    } else {
      return `field "${key}" cannot take a ${describe(value)} onto a ${describe(current)}`;
    }
  }
  for (const [key, value] of updates) fields[key] = value;
  return undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  return typeof value;
}

/** The complete block, and why its streamed input was not used (the start's input is kept then). */
export function completeOtherBlock(block: OpenOtherBlock): { readonly block: Record<string, unknown>; readonly problem?: string } {
  const chunks = block.inputChunks;
  if (chunks === undefined) return { block: block.fields };
  const raw = chunks.join('');
  if (raw.trim() === '') return { block: block.fields };
  if (jsonNestsDeeperThan(raw)) return { block: block.fields, problem: `its input nests deeper than ${MAX_JSON_DEPTH} levels` };
  try {
    return { block: { ...block.fields, input: JSON.parse(raw) as unknown } };
  } catch (error) {
    return { block: block.fields, problem: `its streamed input is not valid JSON (${(error as Error).message}): ${raw.slice(0, 200)}` };
  }
}
