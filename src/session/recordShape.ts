/**
 * A fast, exact-when-it-says-yes check of the record shapes the loop writes, so reading a long
 * transcript does not pay a full schema validation per line (zod was ~60% of resume time).
 *
 * `true` means the value satisfies `sessionRecordSchema` (every constraint of the shapes it
 * knows is checked here); `false` means "not sure": the caller falls back to the schema, which
 * decides and explains. Anything unusual (images, cache_control, unknown block types, ...) is
 * left to the schema on purpose.
 */
import type { SessionRecord } from './records.js';

type Json = Record<string, unknown>;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const TRIGGERS = new Set(['auto', 'reactive', 'manual', 'snip', 'microcompact']);
const STOP_REASONS = new Set(['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal']);

export function isPlainSessionRecord(value: unknown): value is SessionRecord {
  if (!isObject(value) || !base(value)) return false;
  switch (value['type']) {
    case 'user':
      return (
        message(value['message'], 'user') &&
        optional(value['reason'], isString) &&
        optional(value['isMeta'], isBoolean)
      );
    case 'assistant':
      return (
        message(value['message'], 'assistant') &&
        optional(value['messageId'], isString) &&
        optional(value['model'], isString) &&
        optional(value['stopReason'], (v) => v === null || STOP_REASONS.has(v as string)) &&
        optional(value['usage'], usage)
      );
    case 'summary':
      return message(value['message'], undefined);
    case 'compact_boundary':
      return TRIGGERS.has(value['trigger'] as string) && nonNegative(value['preTokens']) && nonNegative(value['postTokens']);
    case 'system':
      return isString(value['subtype']) && value['subtype'] !== '';
    case 'tombstone':
      return Array.isArray(value['uuids']) && everyItem(value['uuids'], nonEmptyString);
    default:
      return false;
  }
}

function base(v: Json): boolean {
  const timestamp = v['timestamp'];
  return (
    nonEmptyString(v['uuid']) &&
    (v['parentUuid'] === null || nonEmptyString(v['parentUuid'])) &&
    nonEmptyString(v['sessionId']) &&
    isString(timestamp) &&
    ISO.test(timestamp) &&
    // Rejects impossible dates (2026-02-30) exactly as the schema does.
    !Number.isNaN(Date.parse(timestamp)) &&
    new Date(timestamp).toISOString() === timestamp &&
    isString(v['cwd']) &&
    isString(v['version']) &&
    optional(v['chainId'], isString) &&
    optional(v['depth'], (d) => Number.isSafeInteger(d) && (d as number) >= 0)
  );
}

function message(v: unknown, role: 'user' | 'assistant' | undefined): boolean {
  if (!isObject(v)) return false;
  const r = v['role'];
  if (role ? r !== role : r !== 'user' && r !== 'assistant') return false;
  const content = v['content'];
  if (isString(content)) return true;
  return Array.isArray(content) && everyItem(content, block);
}

function block(b: unknown): boolean {
  if (!isObject(b) || b['cache_control'] !== undefined) return false;
  switch (b['type']) {
    case 'text':
      return isString(b['text']);
    case 'tool_use':
      return isString(b['id']) && isString(b['name']) && isObject(b['input']);
    case 'tool_result':
      return isString(b['tool_use_id']) && optional(b['content'], isString) && optional(b['is_error'], isBoolean);
    case 'thinking':
      return isString(b['thinking']) && isString(b['signature']);
    case 'redacted_thinking':
      return isString(b['data']);
    default:
      return false; // images and anything new: the schema decides
  }
}

function usage(v: unknown): boolean {
  if (!isObject(v)) return false;
  const count = (n: unknown) => Number.isSafeInteger(n) && (n as number) >= 0;
  return (
    optional(v['input_tokens'], count) &&
    optional(v['output_tokens'], count) &&
    optional(v['cache_creation_input_tokens'], (n) => n === null || count(n)) &&
    optional(v['cache_read_input_tokens'], (n) => n === null || count(n))
  );
}

/** Like `every`, but a hole in a sparse array counts as `undefined` (as the schema sees it). */
function everyItem(items: readonly unknown[], check: (v: unknown) => boolean): boolean {
  for (let i = 0; i < items.length; i++) if (!check(items[i])) return false;
  return true;
}

function optional(v: unknown, check: (v: unknown) => boolean): boolean {
  return v === undefined || check(v);
}
function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
function isString(v: unknown): v is string {
  return typeof v === 'string';
}
function nonEmptyString(v: unknown): boolean {
  return typeof v === 'string' && v !== '';
}
function isBoolean(v: unknown): boolean {
  return typeof v === 'boolean';
}
function nonNegative(v: unknown): boolean {
  return typeof v === 'number' && Number.isFinite(v) && v >= 0;
}
