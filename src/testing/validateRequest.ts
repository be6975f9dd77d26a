/**
 * Validates a `POST /v1/messages` body the way the real API does, so a client bug (a dangling
 * tool_use, two user messages in a row, a non-object tool input) fails a test with a 400 exactly
 * as it would fail in production.
 *
 * Each problem is one human-readable string naming where it is (`messages[3].content[1]: ...`).
 * The structural checks run on the raw body, defensively, so they still report what they can when
 * the schema check fails too.
 *
 * Thinking is checked lightly: thinking blocks may only appear in assistant messages, the final
 * assistant message may not end in one, and with `thinking` enabled each needs a signature and
 * the budget must be at least 1024 and below max_tokens.
 * Thinking blocks in earlier turns are accepted without `thinking` enabled, because the real API
 * drops them from context rather than rejecting the request.
 */
import { isApiBlockType } from '../protocol/content.js';
import { apiMessageSchema, apiRequestFieldsSchema, apiRequestSchema } from './apiRequestSchema.js';

type Json = Record<string, unknown>;

/**
 * Frozen message objects already known to pass the message schema. The scripted server shares a
 * conversation's parsed (deep-frozen) messages between its requests, so request n+1 checks the
 * schema of its new messages only; a frozen object cannot have changed since it passed.
 */
export type MessageSchemaCache = WeakSet<object>;

/**
 * The same verdict as {@link validateMessagesRequest}, checking the schema of each message not in
 * `cache` (and adding the frozen ones that pass). A body that fails the schema anywhere is
 * validated again in full, so its errors are word for word (and in the order) of the plain path.
 */
export function validateMessagesRequestCached(body: unknown, cache: MessageSchemaCache): string[] {
  if (!isObject(body) || !Array.isArray(body['messages'])) return validateMessagesRequest(body);
  const messages: unknown[] = body['messages'];
  for (const message of messages) {
    if (typeof message === 'object' && message !== null && cache.has(message)) continue;
    if (!apiMessageSchema.safeParse(message).success) return validateMessagesRequest(body);
    if (typeof message === 'object' && message !== null && Object.isFrozen(message)) cache.add(message);
  }
  if (!apiRequestFieldsSchema.safeParse(body).success) return validateMessagesRequest(body);
  // The whole schema passes (it is these parts), so the plain path's errors are the structural ones alone.
  return checkStructureCached(body, messages, structureCacheOf(cache));
}

/**
 * What the structural check of a body without structural errors established about its messages
 * but the last (the ones it checked as not last), kept under its first message: the scripted
 * server's parser hands a conversation's next request the same frozen message objects, so in
 * request n+1 those messages, and the pairs among them, need no second look.
 */
interface CheckedPrefix {
  /** Frozen messages 0..n-1, each checked as not the last one, with its neighbours among them. */
  readonly messages: object[];
  /** Each tool_use id of `messages` and the message it is in. */
  readonly toolUseAt: Map<string, number>;
  /** `breakpointsBefore[i]`: the blocks with cache_control in messages[0..i). */
  readonly breakpointsBefore: number[];
}

type StructureCache = WeakMap<object, CheckedPrefix>;

/** One structure cache per schema cache (one per server), so the exported API stays the same. */
const structureCaches = new WeakMap<MessageSchemaCache, StructureCache>();

function structureCacheOf(cache: MessageSchemaCache): StructureCache {
  let structures = structureCaches.get(cache);
  if (structures === undefined) {
    structures = new WeakMap();
    structureCaches.set(cache, structures);
  }
  return structures;
}

/**
 * `checkStructure(body)`'s verdict, looking again only at what a kept prefix does not cover: the
 * messages after it (with the pair across its end) and the checks over the whole body (tools,
 * thinking, the breakpoint count, from the prefix's count). It only ever answers "no errors"
 * itself; any problem found runs the plain check, so errors are word for word and in its order.
 */
function checkStructureCached(body: Json, messages: readonly unknown[], structures: StructureCache): string[] {
  const head = messages[0];
  if (!isObject(head)) return checkStructure(body);
  const kept = structures.get(head);
  let reused = 0;
  if (kept !== undefined) {
    const shared = Math.min(kept.messages.length, messages.length - 1);
    while (reused < shared && kept.messages[reused] === messages[reused]) reused++;
  }
  if (!newPartIsClean(body, messages, reused, kept)) return checkStructure(body);
  keepPrefix(messages, reused, kept, structures);
  return [];
}

/** Whether the structural checks find nothing, given that messages[0..reused) are `kept`'s. */
function newPartIsClean(body: Json, messages: readonly unknown[], reused: number, kept: CheckedPrefix | undefined): boolean {
  const errors: string[] = [];
  checkTools(body, errors);
  const seenHere = new Set<string>();
  for (let i = reused; i < messages.length; i++) {
    const message = messages[i];
    if (!isObject(message)) return false;
    const role = message['role'];
    if (i === 0 && role !== 'user') return false;
    const previous = i > 0 ? messages[i - 1] : undefined;
    if (isObject(previous) && previous['role'] === role && (role === 'user' || role === 'assistant')) return false;
    checkContent(message, i, i === messages.length - 1, errors);
    for (const [, block] of blocksOf(message)) {
      if (block['type'] !== 'tool_use' || typeof block['id'] !== 'string') continue;
      const id = block['id'];
      const at = kept?.toolUseAt.get(id);
      if ((at !== undefined && at < reused) || seenHere.has(id)) return false;
      seenHere.add(id);
    }
  }
  // The pairs: each message's with the next (tool_use answered) and the one before (tool_result
  // matched). Those wholly inside the prefix were checked with it; the first new one starts at its end.
  for (let i = Math.max(0, reused - 1); i < messages.length; i++) {
    const message = messages[i] as Json;
    if (message['role'] === 'assistant') checkToolUsesAnswered(messages, i, errors);
    if (message['role'] === 'user' && i >= reused) checkToolResultsMatched(messages, i, errors);
  }
  checkThinking(body, messages, errors);
  if (errors.length > 0) return false;
  let breakpoints = breakpointsOutsideMessages(body) + (reused > 0 ? kept!.breakpointsBefore[reused]! : 0);
  for (let i = reused; i < messages.length; i++) breakpoints += breakpointsIn(messages[i] as Json);
  return breakpoints <= MAX_CACHE_BREAKPOINTS;
}

/**
 * Keeps what a body without structural errors established: its messages but the last, the frozen
 * ones up to the first that is not (only a frozen message is sure to be the same next time).
 * A body that extends the kept prefix appends to it; one that parts from it earlier starts anew.
 */
function keepPrefix(messages: readonly unknown[], reused: number, kept: CheckedPrefix | undefined, structures: StructureCache): void {
  let prefix = kept;
  if (prefix === undefined || reused < prefix.messages.length) {
    prefix = { messages: [], toolUseAt: new Map(), breakpointsBefore: [0] };
    reused = 0;
    structures.set(messages[0] as object, prefix);
  }
  for (let i = reused; i < messages.length - 1; i++) {
    const message = messages[i] as Json;
    if (!Object.isFrozen(message)) return;
    for (const [, block] of blocksOf(message)) {
      if (block['type'] === 'tool_use' && typeof block['id'] === 'string' && !prefix.toolUseAt.has(block['id'])) prefix.toolUseAt.set(block['id'], i);
    }
    prefix.breakpointsBefore.push(prefix.breakpointsBefore[i]! + breakpointsIn(message));
    prefix.messages.push(message);
  }
}

/** The problems the real API would report for this request body (empty when it is valid). */
export function validateMessagesRequest(body: unknown): string[] {
  if (!isObject(body)) return [`request body must be a JSON object, got ${describe(body)}`];
  const errors: string[] = [];
  const structural = checkStructure(body);

  const parsed = apiRequestSchema.safeParse(body);
  if (!parsed.success) {
    for (const issue of flattenIssues(parsed.error.issues, [])) {
      // A non-object tool_use input is reported by the structural check, in clearer words.
      if (isToolUseInputPath(body, issue.path)) continue;
      // A block type the API does not take is reported by checkContent, in its own words.
      if (issue.path.length === 5 && issue.path[0] === 'messages' && issue.path[2] === 'content' && issue.path[4] === 'type') continue;
      errors.push(`${formatPath(issue.path)}: ${issue.message}`);
    }
  }
  errors.push(...structural);
  return errors;
}

function checkStructure(body: Json): string[] {
  const errors: string[] = [];
  checkTools(body, errors);

  const messages = body['messages'];
  if (!Array.isArray(messages)) return errors; // the schema check reports it
  if (messages.length === 0) {
    errors.push('messages: at least one message is required');
    return errors;
  }

  const firstToolUse = new Map<string, number>();
  messages.forEach((message: unknown, i) => {
    if (!isObject(message)) return;
    const role = message['role'];
    if (i === 0 && role !== 'user') {
      errors.push(`messages[0]: the first message must have role "user", got ${describe(role)}`);
    }
    const previous: unknown = i > 0 ? messages[i - 1] : undefined;
    if (i > 0 && isObject(previous) && previous['role'] === role && (role === 'user' || role === 'assistant')) {
      errors.push(
        `messages[${i}]: two consecutive "${role}" messages (messages[${i - 1}] and messages[${i}]); roles must alternate between "user" and "assistant"`,
      );
    }
    checkContent(message, i, i === messages.length - 1, errors);
    for (const [k, block] of blocksOf(message)) {
      if (block['type'] !== 'tool_use' || typeof block['id'] !== 'string') continue;
      const first = firstToolUse.get(block['id']);
      if (first === undefined) firstToolUse.set(block['id'], i);
      else errors.push(`messages[${i}].content[${k}]: duplicate tool_use id "${block['id']}" (first used in messages[${first}])`);
    }
  });

  for (let i = 0; i < messages.length; i++) {
    const message: unknown = messages[i];
    if (!isObject(message)) continue;
    if (message['role'] === 'assistant') checkToolUsesAnswered(messages, i, errors);
    if (message['role'] === 'user') checkToolResultsMatched(messages, i, errors);
  }

  checkThinking(body, messages, errors);
  checkCacheBreakpoints(body, messages, errors);
  return errors;
}

/** The real API allows at most 4 cache_control breakpoints per request (system, tools, messages). */
const MAX_CACHE_BREAKPOINTS = 4;

function checkCacheBreakpoints(body: Json, messages: readonly unknown[], errors: string[]): void {
  const where: string[] = [];
  const visit = (block: unknown, path: string): void => {
    if (!isObject(block)) return;
    if (block['cache_control'] !== undefined) where.push(path);
    const nested = block['content'];
    if (block['type'] === 'tool_result' && Array.isArray(nested)) nested.forEach((b: unknown, n) => visit(b, `${path}.content[${n}]`));
  };
  const system = body['system'];
  if (Array.isArray(system)) system.forEach((b: unknown, k) => visit(b, `system[${k}]`));
  const tools = body['tools'];
  if (Array.isArray(tools)) tools.forEach((t: unknown, k) => visit(t, `tools[${k}]`));
  messages.forEach((message, i) => {
    if (isObject(message)) for (const [k, block] of blocksOf(message)) visit(block, `messages[${i}].content[${k}]`);
  });
  if (where.length > MAX_CACHE_BREAKPOINTS) {
    errors.push(
      `request: ${where.length} blocks have cache_control (${where.join(', ')}); at most ${MAX_CACHE_BREAKPOINTS} are allowed`,
    );
  }
}

/** How many blocks of system and tools have cache_control (what checkCacheBreakpoints counts there). */
function breakpointsOutsideMessages(body: Json): number {
  let count = 0;
  const system = body['system'];
  if (Array.isArray(system)) for (const block of system as unknown[]) count += breakpointsOfBlock(block);
  const tools = body['tools'];
  if (Array.isArray(tools)) for (const tool of tools as unknown[]) count += breakpointsOfBlock(tool);
  return count;
}

/** How many blocks of a message have cache_control (what checkCacheBreakpoints counts there). */
function breakpointsIn(message: Json): number {
  let count = 0;
  for (const [, block] of blocksOf(message)) count += breakpointsOfBlock(block);
  return count;
}

/** checkCacheBreakpoints' `visit`, counting: the block, and a tool_result's nested blocks. */
function breakpointsOfBlock(block: unknown): number {
  if (!isObject(block)) return 0;
  let count = block['cache_control'] !== undefined ? 1 : 0;
  const nested = block['content'];
  if (block['type'] === 'tool_result' && Array.isArray(nested)) for (const b of nested as unknown[]) count += breakpointsOfBlock(b);
  return count;
}

function checkTools(body: Json, errors: string[]): void {
  const tools = body['tools'];
  const names = new Map<string, number>();
  if (Array.isArray(tools)) {
    tools.forEach((tool: unknown, k) => {
      if (!isObject(tool) || typeof tool['name'] !== 'string') return;
      const first = names.get(tool['name']);
      if (first === undefined) names.set(tool['name'], k);
      else errors.push(`tools[${k}]: duplicate tool name "${tool['name']}" (also tools[${first}]); tool names must be unique`);
    });
  }
  const choice = body['tool_choice'];
  if (isObject(choice) && choice['type'] === 'tool' && typeof choice['name'] === 'string' && !names.has(choice['name'])) {
    errors.push(`tool_choice: names tool "${choice['name']}", which is not in tools`);
  }
}

function checkContent(message: Json, i: number, isLast: boolean, errors: string[]): void {
  const role = message['role'];
  const content = message['content'];
  const emptyAllowed = isLast && role === 'assistant'; // an empty final assistant prefill is allowed
  if (!emptyAllowed && (content === '' || (Array.isArray(content) && content.length === 0))) {
    errors.push(`messages[${i}]: content must not be empty (only a final assistant message may be empty)`);
  }
  for (const [k, block] of blocksOf(message)) {
    const where = `messages[${i}].content[${k}]`;
    const type = block['type'];
    if (typeof type !== 'string' || !isApiBlockType(type)) errors.push(`${where}.type: not a block type the API accepts: ${describe(type)}`);
    if (type === 'text' && block['text'] === '') errors.push(`${where}: text blocks must not be empty`);
    if (type === 'tool_use') {
      if (role !== 'assistant') errors.push(`${where}: tool_use blocks may only appear in assistant messages`);
      if (!isObject(block['input'])) {
        errors.push(`${where}: tool_use input must be a JSON object, got ${describe(block['input'])}`);
      }
    }
    if (type === 'tool_result' && role !== 'user') {
      errors.push(`${where}: tool_result blocks may only appear in user messages`);
    }
    if ((type === 'thinking' || type === 'redacted_thinking') && role !== 'assistant') {
      errors.push(`${where}: ${type} blocks may only appear in assistant messages`);
    }
  }
}

/** Every tool_use of messages[i] needs a tool_result in messages[i + 1], ahead of other content. */
function checkToolUsesAnswered(messages: readonly unknown[], i: number, errors: string[]): void {
  const message = messages[i] as Json;
  const ids = blocksOf(message)
    .filter(([, b]) => b['type'] === 'tool_use' && typeof b['id'] === 'string')
    .map(([, b]) => b['id'] as string);
  if (ids.length === 0) return;

  const next = messages[i + 1];
  if (!isObject(next) || next['role'] !== 'user') {
    const why = next === undefined ? 'there is no next message' : 'the next message is not a user message';
    for (const id of ids) {
      errors.push(
        `messages[${i}]: tool_use id "${id}" has no tool_result (${why}); every tool_use must be answered by a tool_result at the start of the next user message`,
      );
    }
    return;
  }

  const answered = new Set<string>();
  let seenOther = false;
  for (const [k, block] of blocksOf(next)) {
    if (block['type'] !== 'tool_result') {
      seenOther = true;
      continue;
    }
    const id = block['tool_use_id'];
    if (seenOther) {
      errors.push(
        `messages[${i + 1}].content[${k}]: tool_result for "${String(id)}" comes after other content; tool_result blocks must come first in the message`,
      );
    }
    if (typeof id === 'string') {
      if (answered.has(id)) errors.push(`messages[${i + 1}].content[${k}]: duplicate tool_result for tool_use id "${id}"`);
      answered.add(id);
    }
  }
  for (const id of ids) {
    if (!answered.has(id)) {
      errors.push(
        `messages[${i + 1}]: no tool_result for tool_use id "${id}" of messages[${i}]; every tool_use must be answered by a tool_result at the start of the next user message`,
      );
    }
  }
}

/** Every tool_result of messages[i] must answer a tool_use of the assistant message before it. */
function checkToolResultsMatched(messages: readonly unknown[], i: number, errors: string[]): void {
  const previous = i > 0 ? messages[i - 1] : undefined;
  const ids = new Set<string>();
  if (isObject(previous) && previous['role'] === 'assistant') {
    for (const [, b] of blocksOf(previous)) if (b['type'] === 'tool_use' && typeof b['id'] === 'string') ids.add(b['id']);
  }
  for (const [k, block] of blocksOf(messages[i] as Json)) {
    if (block['type'] !== 'tool_result') continue;
    const id = block['tool_use_id'];
    if (typeof id === 'string' && !ids.has(id)) {
      const where = i === 0 ? 'there is no previous assistant message' : `not in messages[${i - 1}]`;
      errors.push(
        `messages[${i}].content[${k}]: tool_result for tool_use id "${id}" has no matching tool_use in the previous assistant message (${where})`,
      );
    }
  }
}

function checkThinking(body: Json, messages: readonly unknown[], errors: string[]): void {
  const last = messages[messages.length - 1];
  if (isObject(last) && last['role'] === 'assistant') {
    const blocks = blocksOf(last);
    const final = blocks[blocks.length - 1];
    if (final && (final[1]['type'] === 'thinking' || final[1]['type'] === 'redacted_thinking')) {
      errors.push(`messages[${messages.length - 1}]: the final assistant message cannot end with a ${String(final[1]['type'])} block`);
    }
  }
  const thinking = body['thinking'];
  if (!isObject(thinking) || thinking['type'] !== 'enabled') return;
  const budget = thinking['budget_tokens'];
  const maxTokens = body['max_tokens'];
  if (typeof budget === 'number' && budget < 1024) {
    errors.push(`thinking.budget_tokens: must be at least 1024, got ${budget}`);
  }
  if (typeof budget === 'number' && typeof maxTokens === 'number' && maxTokens <= budget) {
    errors.push(`max_tokens: must be greater than thinking.budget_tokens (${maxTokens} <= ${budget})`);
  }
  messages.forEach((message, i) => {
    if (!isObject(message)) return;
    for (const [k, block] of blocksOf(message)) {
      if (block['type'] === 'thinking' && (typeof block['signature'] !== 'string' || block['signature'] === '')) {
        errors.push(`messages[${i}].content[${k}]: thinking block has no signature (required when thinking is enabled)`);
      }
    }
  });
}

/** The object blocks of a message's content with their indexes (none when content is a string). */
function blocksOf(message: Json): [number, Json][] {
  const content = message['content'];
  if (!Array.isArray(content)) return [];
  const out: [number, Json][] = [];
  content.forEach((block: unknown, k) => {
    if (isObject(block)) out.push([k, block]);
  });
  return out;
}

interface SchemaIssue {
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly code?: string;
  readonly errors?: readonly (readonly SchemaIssue[])[];
}

/**
 * zod reports a failed union (content: string | blocks) as one vague "Invalid input" at the union;
 * descend into the branch that got furthest, so the message points at the offending block field.
 */
function flattenIssues(issues: readonly SchemaIssue[], prefix: readonly PropertyKey[]): SchemaIssue[] {
  const out: SchemaIssue[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    const branches = issue.code === 'invalid_union' ? (issue.errors ?? []) : [];
    const deepest = branches
      .map((branch) => ({ branch, depth: Math.max(0, ...branch.map((i) => i.path.length)) }))
      .sort((a, b) => b.depth - a.depth)[0];
    if (deepest && deepest.depth > 0) out.push(...flattenIssues(deepest.branch, path));
    else out.push({ path, message: issue.message });
  }
  return out;
}

function isToolUseInputPath(body: Json, path: readonly PropertyKey[]): boolean {
  if (path.length !== 5 || path[0] !== 'messages' || path[2] !== 'content' || path[4] !== 'input') return false;
  const messages = body['messages'];
  if (!Array.isArray(messages)) return false;
  const message: unknown = messages[path[1] as number];
  if (!isObject(message) || !Array.isArray(message['content'])) return false;
  const block: unknown = message['content'][path[3] as number];
  return isObject(block) && block['type'] === 'tool_use';
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return 'request';
  let out = '';
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out === '' ? String(key) : `.${String(key)}`;
  return out;
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  if (value === undefined) return 'nothing';
  return `a ${typeof value}`;
}
