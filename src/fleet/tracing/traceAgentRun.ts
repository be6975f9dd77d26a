/**
 * `traceAgentRun(tracer)`: an operator over the loop's events that records OpenTelemetry spans —
 * the run (`invoke_agent`), each iteration, each model call (`chat <model>`, with the GenAI usage
 * attributes and stop reason), each tool call (`execute_tool <name>`, with its duration and error),
 * retries and compactions (short child spans), and subagents (their own `invoke_agent` span under
 * the Agent tool call that started them: a child's events arrive wrapped in that call's
 * `tool_progress`, a grandchild's twice, and each child is told apart by its events' `chainId`).
 *
 * It passes every event through unchanged and never throws into the stream: tracing is an
 * observer. Spans follow the events, so the loop itself needs to know nothing about tracing, and
 * with `@opentelemetry/api`'s default no-op tracer nothing is recorded at all.
 */
import { context as otelContext, SpanStatusCode, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';
import { Observable, type OperatorFunction } from 'rxjs';
import { subagentEventOf } from '../../agents/events.js';
import type { LoopEvent } from '../../loop/types.js';
import { GEN_AI, RXAGENT } from './genAiAttributes.js';
import type { ToolSpans } from './toolSpans.js';

export interface TraceOptions {
  /** The context the run span is a child of (a worker passes the submitter's; default: the active one). */
  readonly parent?: Context;
  /** Recorded as `gen_ai.conversation.id`. */
  readonly sessionId?: string;
  /** Where tools find their call's span while it is open (to send its trace context on, e.g. to an MCP server). */
  readonly toolSpans?: ToolSpans;
}

/** The Agent call a subagent's event came wrapped in: its span (when open) and the child's type and depth in the tree. */
interface Carrier {
  readonly span: Span | undefined;
  readonly agentType: string;
  readonly depth: number;
}

/** What is open for one agent (the main one, or a subagent by its chainId). */
interface ChainSpans {
  readonly agent: Span;
  iteration?: Span;
  model?: Span;
  /** Open tool calls by tool_use id, with the tool's name (a subagent nests under an open `Agent` call). */
  readonly tools: Map<string, { readonly span: Span; readonly name: string }>;
}

export function traceAgentRun(tracer: Tracer, options: TraceOptions = {}): OperatorFunction<LoopEvent, LoopEvent> {
  return (source) =>
    new Observable<LoopEvent>((subscriber) => {
      const parent = options.parent ?? otelContext.active();
      const run = tracer.startSpan('invoke_agent rxagent', { attributes: {
        [GEN_AI.operationName]: 'invoke_agent', [GEN_AI.system]: 'anthropic', [GEN_AI.agentName]: 'rxagent',
        ...(options.sessionId ? { [GEN_AI.conversationId]: options.sessionId } : {}),
      } }, parent);
      const chains = new Map<string, ChainSpans>();
      let rootChain: string | undefined;
      let ended = false;
      const child = (name: string, under: Span, attributes: Record<string, string | number>) =>
        tracer.startSpan(name, { attributes }, trace.setSpan(parent, under));

      /** `carrier`: the Agent call whose progress carried this (a subagent's) event, and what it said of the child. */
      const chainOf = (event: LoopEvent, carrier?: Carrier): ChainSpans => {
        rootChain ??= event.chainId;
        let chain = chains.get(event.chainId);
        if (chain) return chain;
        if (event.chainId === rootChain) chain = { agent: run, tools: new Map() };
        else {
          // A subagent: under the Agent call that started it (else the run, should it be unknown).
          const agent = child('invoke_agent subagent', carrier?.span ?? run, {
            [GEN_AI.operationName]: 'invoke_agent',
            [RXAGENT.depth]: carrier?.depth ?? event.depth,
            ...(carrier ? { [GEN_AI.agentName]: carrier.agentType } : {}),
          });
          chain = { agent, tools: new Map() };
        }
        chains.set(event.chainId, chain);
        return chain;
      };
      const toolSpan = (chain: ChainSpans, name: string, toolUseId: string) =>
        child(`execute_tool ${name}`, chain.iteration ?? chain.agent, {
          [GEN_AI.operationName]: 'execute_tool', [GEN_AI.toolName]: name, [GEN_AI.toolCallId]: toolUseId,
        });
      // A tool that asks for its span before its tool_start reached us: under the main agent's iteration.
      options.toolSpans?.attach((toolUseId, toolName) => {
        const main = rootChain === undefined ? undefined : chains.get(rootChain);
        return toolSpan(main ?? { agent: run, tools: new Map() }, toolName, toolUseId);
      });
      const endIteration = (chain: ChainSpans) => {
        chain.model?.end();
        chain.iteration?.end();
        chain.model = undefined;
        chain.iteration = undefined;
      };

      const observe = (event: LoopEvent, carrier?: Carrier): void => {
        const chain = chainOf(event, carrier);
        switch (event.type) {
          case 'tool_progress': {
            // A subagent's events arrive wrapped in its Agent call's progress (a grandchild's
            // twice): each is traced as its own chain, under the call that carried it.
            const inner = subagentEventOf(event);
            if (inner) observe(inner.event, { span: chain.tools.get(inner.parentToolUseId)?.span, agentType: inner.agentType, depth: inner.agentDepth });
            return;
          }
          case 'iteration_start':
            endIteration(chain);
            chain.iteration = child('rxagent.iteration', chain.agent, { [RXAGENT.turn]: event.turnCount });
            // The request goes out right after the iteration starts (after context governance).
            chain.model = child(`chat ${event.model}`, chain.iteration, { [GEN_AI.operationName]: 'chat', [GEN_AI.requestModel]: event.model });
            return;
          case 'assistant_message': {
            const { message } = event;
            const usage = message.usage;
            chain.model?.setAttributes({
              [GEN_AI.responseModel]: message.model,
              [GEN_AI.responseId]: message.id,
              [GEN_AI.finishReasons]: message.stop_reason ? [message.stop_reason] : [],
              [GEN_AI.inputTokens]: usage.input_tokens ?? 0,
              [GEN_AI.outputTokens]: usage.output_tokens ?? 0,
              [GEN_AI.cacheReadInputTokens]: usage.cache_read_input_tokens ?? 0,
              [GEN_AI.cacheCreationInputTokens]: usage.cache_creation_input_tokens ?? 0,
            });
            chain.model?.end();
            chain.model = undefined;
            return;
          }
          case 'api_retry':
          case 'stream_retry': {
            const retry = event.retry as { attempt?: number; status?: number; errorType?: string; message?: string };
            const span = child('rxagent.retry', chain.model ?? chain.iteration ?? chain.agent, {
              [RXAGENT.retryAttempt]: retry.attempt ?? 0,
              [RXAGENT.retryErrorType]: retry.errorType ?? event.type,
              ...(retry.status === undefined ? {} : { [RXAGENT.retryStatus]: retry.status }),
            });
            span.setStatus({ code: SpanStatusCode.ERROR, ...(retry.message ? { message: retry.message } : {}) });
            span.end();
            return;
          }
          case 'tool_start': {
            const made = () => toolSpan(chain, event.name, event.toolUseId);
            const span = options.toolSpans ? options.toolSpans.adoptOr(event.toolUseId, made) : made();
            chain.tools.set(event.toolUseId, { span, name: event.name });
            return;
          }
          case 'tool_result': {
            // A result without a start: a call refused before it ran (permission, unknown tool).
            const span = chain.tools.get(event.toolUseId)?.span ?? toolSpan(chain, event.name, event.toolUseId);
            span.setAttribute(RXAGENT.toolDurationMs, event.durationMs);
            if (event.result.is_error) span.setStatus({ code: SpanStatusCode.ERROR, message: resultText(event.result.content) });
            span.end();
            chain.tools.delete(event.toolUseId);
            options.toolSpans?.closed(event.toolUseId);
            return;
          }
          case 'compact_boundary':
            child('rxagent.compaction', chain.iteration ?? chain.agent, {
              [RXAGENT.compactTrigger]: event.trigger, [RXAGENT.compactPreTokens]: event.preTokens, [RXAGENT.compactPostTokens]: event.postTokens,
            }).end();
            return;
          case 'terminal':
            if (chain.agent !== run) return closeChain(event.chainId, chain, event.reason, event.error?.message);
            run.setAttributes({
              [RXAGENT.terminalReason]: event.reason, [RXAGENT.turn]: event.turnCount, [RXAGENT.costUsd]: event.costUsd,
              [GEN_AI.inputTokens]: event.usage.inputTokens, [GEN_AI.outputTokens]: event.usage.outputTokens,
            });
            endAll(event.reason === 'completed' ? undefined : event.error?.message ?? event.reason, event.reason);
            return;
          default:
            return;
        }
      };
      const closeChain = (id: string, chain: ChainSpans, reason: string, error?: string) => {
        for (const [toolUseId, { span }] of chain.tools) {
          span.end();
          options.toolSpans?.closed(toolUseId);
        }
        endIteration(chain);
        chain.agent.setAttribute(RXAGENT.terminalReason, reason);
        if (reason !== 'completed') chain.agent.setStatus({ code: SpanStatusCode.ERROR, message: error ?? reason });
        if (chain.agent !== run) chain.agent.end();
        chains.delete(id);
      };
      const endAll = (error: string | undefined, reason: string) => {
        if (ended) return;
        ended = true;
        for (const [id, chain] of chains) if (chain.agent !== run) closeChain(id, chain, reason, error);
        for (const [id, chain] of chains) closeChain(id, chain, reason, error);
        if (error !== undefined) run.setStatus({ code: SpanStatusCode.ERROR, message: error });
        run.end();
      };
      const safely = (event: LoopEvent) => {
        try {
          observe(event);
        } catch {
          // A tracer that throws must not break the run it observes.
        }
      };

      const subscription = source.subscribe({
        next: (event) => {
          safely(event);
          subscriber.next(event);
        },
        error: (error: unknown) => {
          endAll(error instanceof Error ? error.message : String(error), 'error');
          subscriber.error(error);
        },
        complete: () => {
          endAll(undefined, 'completed');
          subscriber.complete();
        },
      });
      return () => {
        subscription.unsubscribe();
        endAll('unsubscribed', 'unsubscribed');
      };
    });
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content.slice(0, 200);
  return JSON.stringify(content).slice(0, 200);
}
