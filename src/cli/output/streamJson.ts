/**
 * LoopEvent -> stream-json lines, in the shapes of Claude Code's print mode (see
 * `outputSchemas.ts`). A mapper is created per run; `map` is called with each loop event and
 * returns the lines to print for it (often none). Deterministic given `newUuid` and `now`, so it
 * is unit-tested without a process.
 *
 * - `assistant`: one line per completed content block, all with the message id of their response
 *   (as Claude Code prints them), so a consumer sees a tool call before the response ends.
 * - `user`: one line per tool result the moment it exists; later history messages repeat only
 *   what was not printed yet (synthetic results of orphaned calls, Stop hook feedback).
 * - `system/api_retry` before each retry; `discard_partial` is true when lines of the failed
 *   attempt were already printed (our addition: consumers must drop them).
 * - `tombstone` names the printed lines' uuids of the retracted messages.
 * - exactly one `result`, for the terminal.
 * - subagents: a child's events arrive wrapped in the Agent call's `tool_progress`
 *   (`subagentEventOf`); they are mapped by a mapper of their own (one per child, so a child's
 *   response never mixes with the parent's) whose lines carry `parent_tool_use_id` = the Agent
 *   call that started the child. A grandchild's events are wrapped twice: the innermost wrapper
 *   names its direct parent. A child's terminal prints nothing (its answer is the Agent call's
 *   tool result, and the run has one result line).
 */
import { subagentEventOf } from '../../agents/events.js';
import type { AssemblyEvent } from '../../assembly/types.js';
import type { AssistantContentBlock, ContentBlock, Usage } from '../../protocol/content.js';
import type { LoopEvent, TerminalEvent } from '../../loop/types.js';
import type { ApiRetryEvent } from '../../transport/types.js';
import { assertNever } from '../../util/assertNever.js';
import type { SandboxStatus } from '../../sandbox/types.js';
import type { InitLine, OutputLine } from '../outputSchemas.js';
import { rawEventsOf } from './partialEvent.js';
import { createModelUsage, fullUsage, sdkRetryError } from './sdkShapes.js';
import type { StructuredOutputState } from '../structuredOutput.js';
import { buildResultLine, type PermissionDenial } from './resultLine.js';

export interface RunDescription {
  readonly sessionId: string;
  readonly cwd: string;
  readonly model: string;
  readonly tools: readonly string[];
  readonly permissionMode: string;
  readonly apiKeySource: string;
  /** rxagent's version (printed as `claude_code_version`). */
  readonly version?: string;
  /** Subagent names the Agent tool offers. */
  readonly agents?: readonly string[];
  readonly mcpServers?: ReadonlyArray<{ readonly name: string; readonly status: string }>;
  readonly slashCommands?: readonly string[];
  readonly betas?: readonly string[];
  /** `max_tokens` of each request (the SDK's modelUsage reports it). */
  readonly maxOutputTokens?: number;
  /** The OS sandbox of shell commands; absent for callers that do not say. */
  readonly sandbox?: SandboxStatus;
}

export interface StreamJsonOptions {
  readonly includePartialMessages: boolean;
  readonly newUuid: () => string;
  readonly now: () => number;
  /** Set for a subagent's mapper: the Agent call that started it (null: the top-level run). */
  readonly parentToolUseId?: string;
  /** With `--json-schema`: the turn's structured answer when the result is built. */
  readonly structuredOutput?: () => StructuredOutputState | undefined;
  /** Shared by a run's mapper and its subagents' (the result counts the whole tree), and by a session's turns (a running total). */
  readonly modelUsage?: ReturnType<typeof createModelUsage>;
  /** The cost of the session's earlier turns: `total_cost_usd` is the session's running total. */
  readonly costBefore?: number;
  /**
   * The structured result of a started call of `toolName` that an interrupt cut off (the tool's
   * `stoppedResult`): the loop answers such a call with a synthetic result in the history, whose
   * line then carries it as `tool_use_result` (Bash's `interrupted: true`).
   */
  readonly stoppedResult?: (toolName: string) => unknown;
  /** The uuids of the lines that showed a message of the run's transcript, once its record uuid is known (`--resume-session-at`). */
  readonly onMessageLines?: (recordUuid: string, lineUuids: readonly string[]) => void;
}

export function initLine(run: RunDescription, uuid: string): InitLine {
  return {
    type: 'system',
    subtype: 'init',
    session_id: run.sessionId,
    uuid,
    cwd: run.cwd,
    model: run.model,
    tools: [...run.tools],
    permissionMode: run.permissionMode,
    apiKeySource: run.apiKeySource,
    output_style: 'default',
    claude_code_version: run.version ?? '',
    mcp_servers: (run.mcpServers ?? []).map((s) => ({ name: s.name, status: s.status })),
    slash_commands: [...(run.slashCommands ?? [])],
    skills: [],
    plugins: [],
    agents: [...(run.agents ?? [])],
    ...(run.betas && run.betas.length > 0 ? { betas: [...run.betas] } : {}),
    ...(run.sandbox === undefined ? {} : { sandbox: run.sandbox.kind === 'off' ? { enabled: false, reason: run.sandbox.reason } : { enabled: true, kind: run.sandbox.kind, network: run.sandbox.network } }),
  };
}

export interface StreamJsonMapper {
  map(event: LoopEvent): OutputLine[];
  /** The result line for a terminal (also what `map` returns for it), with the run's facts. */
  result(terminal: TerminalEvent): OutputLine & { type: 'result' };
  /** Permission denials are observed outside the event stream (in `canUseTool`). */
  recordDenial(denial: PermissionDenial): void;
}

/**
 * The block as the API's complete message has it: fields our assembly adds (`invalid`) dropped,
 * and a text block's `citations: null`, which the non-streaming body carries and streaming
 * omits (the SDK's message type requires it).
 */
function plainBlock(block: AssemblyEvent & { type: 'block' }): AssistantContentBlock {
  const b = block.block;
  if (b.type === 'tool_use') return { type: 'tool_use', id: b.id, name: b.name, input: b.input };
  if (b.type === 'text' && !('citations' in b)) return { ...b, citations: null };
  return b;
}

/**
 * The SDK's `tool_use_result`, as Claude Code fills it: the tool's structured result when it has
 * one (Bash `{ stdout, ... }`, Read `{ type, file }`, ...); for an error the text prefixed
 * `Error: `; otherwise the content the model got.
 */
function toolUseResultOf(event: LoopEvent & { type: 'tool_result' }): unknown {
  if (event.structured !== undefined) return event.structured;
  const content = event.result.content ?? '';
  return event.result.is_error === true && typeof content === 'string' ? `Error: ${content}` : content;
}

export function createStreamJsonMapper(run: RunDescription, options: StreamJsonOptions): StreamJsonMapper {
  const { newUuid, now } = options;
  const sessionId = run.sessionId;
  const parentId = options.parentToolUseId ?? null;
  /** One mapper per subagent, keyed by the path of agent ids from this run down to it. */
  const children = new Map<string, StreamJsonMapper>();
  /** The response being streamed: its id/model/usage, and the uuids of the lines printed for it. */
  let current: { id: string; model: string; usage: Usage; lineUuids: string[] } | undefined;
  let iterationStartedAt: number | undefined;
  let apiMs = 0;
  let stopReason: string | null = null;
  const printedToolResults = new Map<string, string>();
  /** Calls that started and have no result line yet: tool_use_id -> tool name. */
  const startedCalls = new Map<string, string>();
  /** Loop message uuid -> uuids of the lines that showed it (for tombstones). */
  const linesOfMessage = new Map<string, string[]>();
  const denials: PermissionDenial[] = [];
  const modelUsage = options.modelUsage ?? createModelUsage(run.maxOutputTokens ?? 0);

  const retryLine = (retry: ApiRetryEvent | Omit<ApiRetryEvent, 'type'>, discardPartial: boolean): OutputLine => ({
    type: 'system',
    subtype: 'api_retry',
    session_id: sessionId,
    uuid: newUuid(),
    attempt: retry.attempt,
    max_retries: retry.maxRetries,
    retry_delay_ms: retry.delayMs,
    error_status: retry.status ?? null,
    error: sdkRetryError(retry.errorType, retry.status),
    discard_partial: discardPartial,
  });

  const userLine = (content: ContentBlock[], uuid: string, toolUseResult?: unknown): OutputLine => ({
    type: 'user',
    session_id: sessionId,
    uuid,
    parent_tool_use_id: parentId,
    message: { role: 'user', content },
    ...(toolUseResult === undefined ? {} : { tool_use_result: toolUseResult }),
  });

  const modelLines = (event: AssemblyEvent): OutputLine[] => {
    const lines: OutputLine[] = [];
    if (options.includePartialMessages) {
      for (const raw of rawEventsOf(event)) {
        lines.push({ type: 'stream_event', session_id: sessionId, uuid: newUuid(), parent_tool_use_id: parentId, event: raw });
      }
    }
    switch (event.type) {
      case 'message_start':
        current = { id: event.id, model: event.model, usage: event.usage, lineUuids: [] };
        break;
      case 'block': {
        const uuid = newUuid();
        current?.lineUuids.push(uuid);
        lines.push({
          type: 'assistant',
          session_id: sessionId,
          uuid,
          parent_tool_use_id: parentId,
          message: {
            id: current?.id ?? 'unknown',
            type: 'message',
            role: 'assistant',
            model: current?.model ?? run.model,
            content: [plainBlock(event)],
            // Known at message_delta only; Claude Code prints these lines before it, with nulls too.
            stop_reason: null,
            stop_sequence: null,
            container: null,
            context_management: null,
            diagnostics: null,
            stop_details: null,
            usage: fullUsage(current?.usage ?? {}),
          },
        });
        break;
      }
      case 'message':
      case 'block_start':
      case 'text_delta':
      case 'thinking_delta':
      case 'tool_input_delta':
      case 'message_delta':
      case 'warning':
        break;
      default:
        assertNever(event);
    }
    return lines;
  };

  const structuredFact = (): { structuredOutput?: StructuredOutputState } => {
    const state = options.structuredOutput?.();
    return state ? { structuredOutput: state } : {};
  };
  const result = (terminal: TerminalEvent) =>
    buildResultLine(options.costBefore ? { ...terminal, costUsd: options.costBefore + terminal.costUsd } : terminal, { sessionId, uuid: newUuid(), stopReason, durationApiMs: apiMs, permissionDenials: denials, modelUsage: modelUsage.snapshot(), ...structuredFact() });

  const childLines = (event: LoopEvent): OutputLine[] | undefined => {
    let data = subagentEventOf(event);
    if (!data) return undefined;
    let key = data.agentId;
    for (let inner = subagentEventOf(data.event); inner; inner = subagentEventOf(inner.event)) {
      data = inner;
      key += `/${inner.agentId}`;
    }
    let child = children.get(key);
    if (!child) {
      // A child's records are in its own transcript: its lines name nothing in the run's.
      const { onMessageLines: _runsOwn, ...childOptions } = options;
      child = createStreamJsonMapper(run, { ...childOptions, parentToolUseId: data.parentToolUseId, modelUsage });
      children.set(key, child);
    }
    const lines = child.map(data.event);
    if (data.event.type === 'terminal') children.delete(key);
    return lines;
  };

  const map = (event: LoopEvent): OutputLine[] => {
    const ofChild = childLines(event);
    if (ofChild) return ofChild;
    switch (event.type) {
      case 'iteration_start':
        iterationStartedAt = now();
        return [];
      case 'model':
        return event.event.type === 'debug' ? [] : modelLines(event.event);
      case 'api_retry':
        return [retryLine(event.retry, false)];
      case 'stream_retry': {
        const printed = current !== undefined && current.lineUuids.length > 0;
        current = undefined;
        return [retryLine(event.retry, printed || options.includePartialMessages)];
      }
      case 'assistant_message':
        modelUsage.add(event.message.model, event.message.usage);
        // The API time of an iteration: from its start to its complete response (retries included).
        stopReason = event.message.stop_reason;
        if (iterationStartedAt !== undefined) apiMs += now() - iterationStartedAt;
        iterationStartedAt = undefined;
        linesOfMessage.set(event.uuid, current?.lineUuids ?? []);
        options.onMessageLines?.(event.uuid, current?.lineUuids ?? []);
        current = undefined;
        return options.includePartialMessages
          ? [{ type: 'stream_event', session_id: sessionId, uuid: newUuid(), parent_tool_use_id: parentId, event: { type: 'message_stop' } }]
          : [];
      case 'tool_start':
        startedCalls.set(event.toolUseId, event.name);
        return [];
      case 'tool_progress':
        return [];
      case 'tool_result': {
        const uuid = newUuid();
        startedCalls.delete(event.toolUseId);
        printedToolResults.set(event.toolUseId, uuid);
        return [userLine([event.result], uuid, toolUseResultOf(event))];
      }
      case 'user_message': {
        const content = typeof event.message.content === 'string' ? [{ type: 'text' as const, text: event.message.content }] : event.message.content;
        const shown: string[] = [];
        const fresh: ContentBlock[] = [];
        for (const block of content) {
          if (block.type === 'tool_result') {
            const printed = printedToolResults.get(block.tool_use_id);
            if (printed !== undefined) shown.push(printed);
            else fresh.push(block);
          } else if (block.type === 'text' && event.reason !== 'prompt' && event.reason !== 'tool_results' && event.isMeta !== true) {
            fresh.push(block);
          }
        }
        const lines: OutputLine[] = [];
        // A started call the interrupt cut off: its synthetic result gets a line of its own with the tool's stopped result.
        for (const block of [...fresh]) {
          const name = block.type === 'tool_result' ? startedCalls.get(block.tool_use_id) : undefined;
          const stopped = name === undefined ? undefined : options.stoppedResult?.(name);
          if (block.type !== 'tool_result' || stopped === undefined) continue;
          const uuid = newUuid();
          shown.push(uuid);
          printedToolResults.set(block.tool_use_id, uuid);
          startedCalls.delete(block.tool_use_id);
          fresh.splice(fresh.indexOf(block), 1);
          lines.push(userLine([block], uuid, stopped));
        }
        if (fresh.length > 0) {
          const uuid = newUuid();
          shown.push(uuid);
          for (const block of fresh) if (block.type === 'tool_result') printedToolResults.set(block.tool_use_id, uuid);
          lines.push(userLine(fresh, uuid));
        }
        linesOfMessage.set(event.uuid, shown);
        options.onMessageLines?.(event.uuid, shown);
        return lines;
      }
      case 'tombstone':
        return [
          {
            type: 'system',
            subtype: 'tombstone',
            session_id: sessionId,
            uuid: newUuid(),
            uuids: event.uuids.flatMap((u) => linesOfMessage.get(u) ?? [u]),
          },
        ];
      case 'warning':
        return [{ type: 'system', subtype: 'warning', session_id: sessionId, uuid: newUuid(), message: event.message }];
      case 'compact_boundary':
        return [
          {
            type: 'system',
            subtype: 'compact_boundary',
            session_id: sessionId,
            uuid: newUuid(),
            compact_metadata: { trigger: event.trigger, pre_tokens: event.preTokens },
          },
        ];
      case 'transition':
      case 'command_lifecycle':
        return [];
      case 'terminal':
        // A subagent's end is its Agent call's tool result; only the run itself has a result line.
        return parentId === null ? [result(event)] : [];
      default:
        return assertNever(event);
    }
  };

  return { map, result, recordDenial: (d) => void denials.push(d) };
}
