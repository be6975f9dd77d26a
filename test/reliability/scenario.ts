/**
 * Random fault scenarios for the loop-level property suite: what the scripted model answers to
 * each request (text, thinking, tools of every behaviour, faults at any event), which hooks fail,
 * and when the consumer aborts. Pure data, so fast-check can print and shrink a failing one.
 */
import fc from 'fast-check';
import { encodeSSE, scriptedMessageToEvents } from '../../src/testing/encodeScript.js';
import type { ScriptedBlock, ScriptedResponse } from '../../src/testing/script.js';

export const TOOL_NAMES = ['fast_safe', 'slow_safe', 'unsafe_write', 'throws', 'hangs', 'ignores_abort', 'spawns'] as const;
export type ToolName = (typeof TOOL_NAMES)[number] | 'no_such_tool';

export type BlockSpec =
  | { readonly t: 'text'; readonly chunk?: number }
  | { readonly t: 'thinking' }
  | { readonly t: 'tool'; readonly name: ToolName }
  | { readonly t: 'bad_input'; readonly name: ToolName }
  /** A subagent (the `Agent` tool of `agentLoopWithSubagents`; an unknown tool otherwise). */
  | { readonly t: 'agent'; readonly background: boolean };

export type Fault =
  | { readonly k: 'none' }
  | { readonly k: 'cut'; readonly after: number }
  | { readonly k: 'stall'; readonly after: number }
  | { readonly k: 'error_event'; readonly after: number; readonly type: 'overloaded_error' | 'api_error' | 'invalid_request_error' }
  | { readonly k: 'omit_stop' }
  | { readonly k: 'garbage' }
  | { readonly k: 'unknown_block' };

export type ResponseSpec =
  | {
      readonly k: 'message';
      readonly blocks: readonly BlockSpec[];
      readonly fault: Fault;
      readonly maxTokens: boolean;
      readonly byteChunk?: number;
    }
  | {
      readonly k: 'http';
      readonly status: 400 | 413 | 429 | 500 | 502 | 529;
      readonly body: 'default' | 'html' | 'empty';
      readonly retryAfter: boolean;
    }
  | { readonly k: 'stall' }
  /** The API's prompt-too-long refusal: reactive compaction when a governor is present. */
  | { readonly k: 'too_long' }
  /** A valid stream with one character replaced, or cut at a character (the socket destroyed). */
  | { readonly k: 'mangled'; readonly blocks: readonly BlockSpec[]; readonly at: number; readonly char: string; readonly cut: boolean };

export type AbortSpec =
  | { readonly k: 'none' }
  | { readonly k: 'pre_aborted' }
  | { readonly k: 'signal_after_ms'; readonly ms: number }
  | { readonly k: 'unsubscribe_after_ms'; readonly ms: number }
  | { readonly k: 'signal_on_event'; readonly n: number }
  | { readonly k: 'unsubscribe_on_event'; readonly n: number };

export interface HookFailures {
  readonly preToolUse: boolean;
  readonly postToolUse: boolean;
  readonly stop: boolean;
  readonly postToolBatch: boolean;
  readonly userPromptSubmit: boolean;
}

/** User input handed to the running loop (`createAgentRun().submit`) when event `atEvent` arrives. */
export interface SubmissionSpec {
  readonly atEvent: number;
  readonly interrupt: boolean;
}

export interface Scenario {
  readonly responses: readonly ResponseSpec[];
  readonly submissions: readonly SubmissionSpec[];
  readonly abort: AbortSpec;
  readonly hooks: HookFailures;
  readonly maxTurns?: number;
  /** Switch to this model when the primary stays overloaded. */
  readonly fallback: boolean;
  /** Run with `createContextGovernor` (a small window, so compaction requests happen too). */
  readonly governor: boolean;
  /** Run as `agentLoopWithSubagents` (no submissions then): children share the scripted replies. */
  readonly tree: boolean;
}

const toolNameArb = fc.constantFrom<ToolName>(...TOOL_NAMES, 'no_such_tool');

const blockArb: fc.Arbitrary<BlockSpec> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ t: fc.constant('text' as const), chunk: fc.integer({ min: 1, max: 6 }) }) },
  { weight: 1, arbitrary: fc.constant<BlockSpec>({ t: 'thinking' }) },
  { weight: 4, arbitrary: fc.record({ t: fc.constant('tool' as const), name: toolNameArb }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('bad_input' as const), name: toolNameArb }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant('agent' as const), background: fc.boolean() }) },
);

const faultArb: fc.Arbitrary<Fault> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Fault>({ k: 'none' }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('cut' as const), after: fc.nat({ max: 14 }) }) },
  { weight: 1, arbitrary: fc.record({ k: fc.constant('stall' as const), after: fc.nat({ max: 14 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('error_event' as const),
      after: fc.nat({ max: 14 }),
      type: fc.constantFrom('overloaded_error' as const, 'api_error' as const, 'invalid_request_error' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant<Fault>({ k: 'omit_stop' }) },
  { weight: 1, arbitrary: fc.constant<Fault>({ k: 'garbage' }) },
  { weight: 1, arbitrary: fc.constant<Fault>({ k: 'unknown_block' }) },
);

const responseArb: fc.Arbitrary<ResponseSpec> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc.record(
      {
        k: fc.constant('message' as const),
        blocks: fc.array(blockArb, { minLength: 0, maxLength: 4 }),
        fault: faultArb,
        maxTokens: fc.integer({ min: 0, max: 5 }).map((n) => n === 0),
        byteChunk: fc.integer({ min: 3, max: 64 }),
      },
      { requiredKeys: ['k', 'blocks', 'fault', 'maxTokens'] },
    ),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      k: fc.constant('http' as const),
      status: fc.constantFrom(400 as const, 413 as const, 429 as const, 500 as const, 502 as const, 529 as const),
      body: fc.constantFrom('default' as const, 'html' as const, 'empty' as const),
      retryAfter: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constant<ResponseSpec>({ k: 'stall' }) },
  { weight: 1, arbitrary: fc.constant<ResponseSpec>({ k: 'too_long' }) },
  {
    weight: 1,
    arbitrary: fc.record({
      k: fc.constant('mangled' as const),
      blocks: fc.array(blockArb, { minLength: 1, maxLength: 3 }),
      at: fc.nat(),
      char: fc.constantFrom('{', '}', '"', ':', '\n', '\r', 'x', '\u00e9', '\ufffd', ' '),
      cut: fc.boolean(),
    }),
  },
);

const abortArb: fc.Arbitrary<AbortSpec> = fc.oneof(
  { weight: 8, arbitrary: fc.constant<AbortSpec>({ k: 'none' }) },
  { weight: 1, arbitrary: fc.constant<AbortSpec>({ k: 'pre_aborted' }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('signal_after_ms' as const), ms: fc.integer({ min: 0, max: 60 }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('unsubscribe_after_ms' as const), ms: fc.integer({ min: 0, max: 60 }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('signal_on_event' as const), n: fc.nat({ max: 40 }) }) },
  { weight: 2, arbitrary: fc.record({ k: fc.constant('unsubscribe_on_event' as const), n: fc.nat({ max: 40 }) }) },
);

/** True one time in four: most runs keep their hooks working so later steps are reached. */
const rarely = fc.integer({ min: 0, max: 3 }).map((n) => n === 0);

/** One time in ten: a failing prompt hook ends the run before any request. */
const seldom = fc.integer({ min: 0, max: 9 }).map((n) => n === 0);

export const scenarioArb: fc.Arbitrary<Scenario> = fc.record(
  {
    responses: fc.array(responseArb, { minLength: 1, maxLength: 6 }),
    submissions: fc.array(fc.record({ atEvent: fc.integer({ min: 1, max: 40 }), interrupt: fc.boolean() }), { maxLength: 2 }),
    abort: abortArb,
    hooks: fc.record({ preToolUse: rarely, postToolUse: rarely, stop: rarely, postToolBatch: rarely, userPromptSubmit: seldom }),
    maxTurns: fc.integer({ min: 1, max: 8 }),
    fallback: fc.boolean(),
    governor: fc.boolean(),
    tree: fc.boolean(),
  },
  { requiredKeys: ['responses', 'submissions', 'abort', 'hooks', 'fallback', 'governor', 'tree'] },
);

// ---------------------------------------------------------------------------------------------
// To the scripted server's format
// ---------------------------------------------------------------------------------------------

function toBlock(spec: BlockSpec, i: number): ScriptedBlock {
  switch (spec.t) {
    case 'text':
      return { type: 'text', text: `part ${i} of the answer`, chunkSize: spec.chunk ?? 100 };
    case 'thinking':
      return { type: 'thinking', thinking: `considering step ${i}`, signature: `sig-${i}` };
    case 'tool':
      return { type: 'tool_use', name: spec.name, input: spec.name === 'unsafe_write' ? { value: `v${i}` } : { n: i } };
    case 'bad_input':
      return { type: 'tool_use', name: spec.name, rawInput: '{"n": 1, "oops' };
    case 'agent':
      return {
        type: 'tool_use',
        name: 'Agent',
        input: { description: `sub task ${i}`, prompt: 'Look into it.', subagent_type: 'general-purpose', run_in_background: spec.background },
      };
  }
}

/** A delta for a block the message never started. */
const UNKNOWN_BLOCK_DELTA = { type: 'content_block_delta', index: 7, delta: { type: 'text_delta', text: 'lost' } };

const HTML_PAGE = '<html><body><h1>502 Bad Gateway</h1></body></html>';

/** The scripted response for one spec (`index` keeps tool ids unique across the run). */
export function toScripted(spec: ResponseSpec, index: number): ScriptedResponse {
  switch (spec.k) {
    case 'stall':
      return { kind: 'stall' };
    case 'mangled': {
      const msg = { kind: 'message' as const, blocks: spec.blocks.map(toBlock) };
      const text = scriptedMessageToEvents(msg, { responseIndex: index, model: 'claude-sonnet-4-5' })
        .map((e) => encodeSSE(e.event))
        .join('');
      const at = spec.at % text.length;
      if (spec.cut) return { kind: 'raw', chunks: [text.slice(0, at)], destroy: true };
      return { kind: 'raw', chunks: [text.slice(0, at) + spec.char + text.slice(at + 1)] };
    }
    case 'too_long':
      return {
        kind: 'http_error',
        status: 400,
        errorType: 'invalid_request_error',
        message: 'prompt is too long: 250000 tokens > 200000 maximum',
      };
    case 'http': {
      const headers: Record<string, string> = spec.retryAfter ? { 'retry-after': '0' } : {};
      if (spec.body === 'default') return { kind: 'http_error', status: spec.status, headers };
      return { kind: 'http_error', status: spec.status, headers, body: spec.body === 'html' ? HTML_PAGE : '' };
    }
    case 'message': {
      const blocks = spec.blocks.map(toBlock);
      const base = {
        kind: 'message' as const,
        blocks,
        ...(spec.maxTokens ? { stopReason: 'max_tokens' as const } : {}),
        ...(spec.byteChunk !== undefined ? { byteChunkSize: spec.byteChunk } : {}),
      };
      const fault = spec.fault;
      switch (fault.k) {
        case 'none':
          return base;
        case 'cut':
          return { ...base, cutAfterEvents: fault.after };
        case 'stall':
          return { ...base, stallAfterEvents: fault.after };
        case 'error_event':
          return { ...base, errorAfterEvents: { events: fault.after, type: fault.type, message: 'scripted failure' } };
        case 'omit_stop':
          return { ...base, omitMessageStop: true };
        case 'garbage':
        case 'unknown_block': {
          const events = scriptedMessageToEvents(base, { responseIndex: index, model: 'claude-sonnet-4-5' }).map((e) =>
            encodeSSE(e.event),
          );
          const bad =
            fault.k === 'garbage'
              ? 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_del\n\n'
              : encodeSSE(UNKNOWN_BLOCK_DELTA);
          const at = Math.min(1 + (index % 3), events.length);
          return { kind: 'raw', chunks: [...events.slice(0, at), bad, ...events.slice(at)] };
        }
      }
    }
  }
}
