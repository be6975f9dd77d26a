/** Fake models for loop tests: scripted messages turned into stream events, no HTTP. */
import { concat, defer, from, throwError, type Observable } from 'rxjs';
import { scriptedMessageToEvents } from '../../src/testing/encodeScript.js';
import type { ScriptedBlock, ScriptedMessage } from '../../src/testing/script.js';
import type { MessagesRequest, ServerToolDefinition } from '../../src/protocol/request.js';
import type { StreamEvent } from '../../src/protocol/events.js';
import type { TransportOutput } from '../../src/transport/types.js';
import type { CallModel } from '../../src/loop/options.js';
import { lastValueFrom, tap, toArray as toArrayOp } from 'rxjs';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { createMessagesClient, type ClosableMessagesClient, type MessagesClientOptions } from '../../src/transport/createMessagesClient.js';
import { agentLoop } from '../../src/loop/agentLoop.js';
import type { AgentLoopOptions } from '../../src/loop/options.js';
import type { LoopEvent, LoopState, TerminalEvent } from '../../src/loop/types.js';
import { ZERO_USAGE } from '../../src/loop/pricing.js';
import { FRESH_TURN_COUNTERS } from '../../src/loop/transitions.js';
import type { RecordedRequest, Script } from '../../src/testing/script.js';
import { validateMessagesRequest } from '../../src/testing/validateRequest.js';
import { expect } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/tools/defineTool.js';
import { COMPACT_SYSTEM_PROMPT } from '../../src/context/compactPrompt.js';
import type { TranscriptRecord } from '../../src/loop/seams.js';

export function message(blocks: readonly ScriptedBlock[], extra: Partial<ScriptedMessage> = {}): ScriptedMessage {
  return { kind: 'message', blocks, ...extra };
}
export const text = (t: string): ScriptedBlock => ({ type: 'text', text: t });
export const toolUse = (name: string, input: Record<string, unknown>, id?: string): ScriptedBlock => ({
  type: 'tool_use',
  name,
  input,
  ...(id ? { id } : {}),
});

export function eventsOf(msg: ScriptedMessage, responseIndex = 0): StreamEvent[] {
  return scriptedMessageToEvents(msg, { responseIndex, model: 'claude-sonnet-4-5' }).map((e) => e.event);
}

export type FakeStep =
  | ScriptedMessage
  | { readonly kind: 'error'; readonly error: unknown }
  /** The first `events` stream events of `message`, then `error`. */
  | { readonly kind: 'partial'; readonly message: ScriptedMessage; readonly events: number; readonly error: unknown };

/**
 * A synchronous fake model: the n-th call plays `script(n)`. Records every request.
 */
export function syncModel(
  script: (n: number, request: MessagesRequest) => FakeStep,
  options: { readonly record?: boolean } = {},
): { callModel: CallModel; requests: MessagesRequest[]; calls: () => number } {
  const requests: MessagesRequest[] = [];
  let count = 0;
  const callModel: CallModel = (request) =>
    defer((): Observable<TransportOutput> => {
      const n = count++;
      // Keeping every request of a very long run would hold every history copy (quadratic memory).
      if (options.record !== false) requests.push(request);
      const step = script(n, request);
      if (step.kind === 'error') return throwError(() => step.error);
      if (step.kind === 'partial') return concat(from(eventsOf(step.message, n).slice(0, step.events)), throwError(() => step.error));
      return from(eventsOf(step, n));
    });
  return { callModel, requests, calls: () => count };
}

let counter = 0;
export const seqId = () => `id-${++counter}`;

export interface HttpRun {
  readonly events: LoopEvent[];
  readonly terminal: TerminalEvent;
  readonly requests: readonly RecordedRequest[];
}

/** Runs the loop over HTTP against the scripted server until its terminal; closes everything. */
export async function runOverHttp(
  script: Script,
  options: Partial<AgentLoopOptions> & {
    readonly maxRetries?: number;
    readonly onEvent?: (e: LoopEvent) => void;
    /** More client options (caps, timeouts). */
    readonly clientOptions?: Partial<MessagesClientOptions>;
    /** The API's own tools offered in every request (the scripted server answers a server call only when offered). */
    readonly serverTools?: readonly ServerToolDefinition[];
  } = {},
): Promise<HttpRun> {
  const server = await startScriptedServer({ script });
  const http = createMessagesClient({
    baseURL: server.baseURL,
    apiKey: 'test-key',
    maxRetries: options.maxRetries ?? 0,
    retryBaseDelayMs: 5,
    retryMaxDelayMs: 10,
    ...options.clientOptions,
  });
  const serverTools = options.serverTools ?? [];
  const client: ClosableMessagesClient =
    serverTools.length === 0
      ? http
      : { close: () => http.close(), stream: (request, o) => http.stream({ ...request, tools: [...serverTools, ...(request.tools ?? [])] }, o) };
  try {
    const { maxRetries: _m, onEvent, clientOptions: _c, serverTools: _s, ...rest } = options;
    const events = await lastValueFrom(
      agentLoop({ model: 'claude-sonnet-4-5', prompt: 'start', ...rest, client }).pipe(
        tap((e) => onEvent?.(e)),
        toArrayOp(),
      ),
    );
    const terminal = events[events.length - 1] as TerminalEvent;
    return { events, terminal, requests: [...server.requests] };
  } finally {
    await client.close();
    await server.close();
  }
}

export function terminals(events: readonly LoopEvent[]): TerminalEvent[] {
  return events.filter((e): e is TerminalEvent => e.type === 'terminal');
}
export function transitions(events: readonly LoopEvent[]): string[] {
  return events.flatMap((e) => (e.type === 'transition' ? [e.reason] : []));
}

/** A safe tool answering its `x` (in-process loop tests). */
export const echoTool = defineTool({
  name: 'echo',
  description: 'Echoes',
  inputSchema: z.strictObject({ x: z.string() }),
  isConcurrencySafe: true,
  call: (input: { x: string }) => input.x,
});

/** A safe tool answering `echo:<x>`, so a result is told apart from its input. */
export const taggedEchoTool = defineTool({
  name: 'echo',
  description: 'Echoes its input',
  inputSchema: z.strictObject({ x: z.string() }),
  isConcurrencySafe: true,
  call: (input: { x: string }) => `echo:${input.x}`,
});

export interface SyncRun {
  readonly events: LoopEvent[];
  readonly terminal: TerminalEvent;
  readonly requests: MessagesRequest[];
  /** Transcript records, when `collectRecords` was asked for. */
  readonly records: TranscriptRecord[];
}

/**
 * Runs the loop against `syncModel(script)` with the echo tool, to its end; every request the
 * model received must be valid. `collectRecords` plugs in a transcript sink that keeps records.
 */
export async function runSync(
  script: (n: number, request: MessagesRequest) => FakeStep,
  options: Partial<AgentLoopOptions> = {},
  { collectRecords = false }: { readonly collectRecords?: boolean } = {},
): Promise<SyncRun> {
  const model = syncModel(script);
  const records: TranscriptRecord[] = [];
  const events: LoopEvent[] = await lastValueFrom(
    agentLoop({
      model: 'claude-sonnet-4-5',
      prompt: 'go',
      tools: [echoTool],
      ...(collectRecords ? { transcript: { append: async (r: readonly TranscriptRecord[]) => void records.push(...r) } } : {}),
      ...options,
      deps: { callModel: model.callModel },
    }).pipe(toArrayOp()),
  );
  for (const request of model.requests) expect(validateMessagesRequest(request)).toEqual([]);
  return { events, terminal: events.at(-1) as TerminalEvent, requests: model.requests, records };
}

/** The lookup tool of the governor tests: a safe tool whose answer is `valueChars` long. */
export function lookupTool(valueChars: number) {
  return defineTool({
    name: 'lookup',
    description: 'Looks a key up.',
    inputSchema: z.strictObject({ key: z.string() }),
    isConcurrencySafe: true,
    call: ({ key }: { key: string }) => `value of ${key}: ${'v'.repeat(valueChars)}`,
  });
}

/**
 * A request's system prompt as text: a string, or the text of its blocks (the loop sends blocks
 * when it places a cache breakpoint on the system prompt, its default).
 */
export const systemText = (request: Pick<MessagesRequest, 'system'> | undefined): string => {
  const system = request?.system;
  return system === undefined ? '' : typeof system === 'string' ? system : system.map((b) => b.text).join('');
};

/**
 * A value with every `cache_control` removed: the breakpoints the loop adds to each request (its
 * default), for comparing a request with the history it was built from.
 */
export function withoutCacheMarks<T>(value: T): T {
  return JSON.parse(JSON.stringify(value, (key, v: unknown) => (key === 'cache_control' ? undefined : v))) as T;
}

/** Whether a request is the governor's compaction call. */
export const isCompaction = (body: MessagesRequest | undefined): boolean => systemText(body) === COMPACT_SYSTEM_PROMPT;

/** A loop state as a run's first turn has it (one user message, nothing spent), with `fields` over it: for the pure reducers' tables. */
export function loopStateOf(fields: Partial<LoopState> = {}): LoopState {
  return {
    messages: [{ role: 'user', content: 'go' }],
    lastMessageUuid: 'u0',
    turnCount: 1,
    chainId: 'c',
    depth: 0,
    transition: undefined,
    model: 'claude-sonnet-4-5',
    shared: {},
    ...FRESH_TURN_COUNTERS,
    tokenBudgetContinuations: 0,
    turnOutputTokens: 0,
    tokenBudgetIncrements: [],
    repeatedCall: undefined,
    usage: ZERO_USAGE,
    costUsd: 0,
    lastAssistantText: undefined,
    lastUsage: undefined,
    lastUsageCovers: 0,
    ...fields,
  };
}
