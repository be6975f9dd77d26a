/**
 * The open `execute_tool` spans of a traced run, by tool_use id, for tools that send their trace
 * context on (an MCP call's `traceparent`). A tool asks at the moment it starts, and that can come
 * before the tracer sees the call's `tool_start`: tool events join the loop's stream at its next
 * drain tick, after the call began. So a tool's ask may start the span early (under the current
 * iteration of the main agent); the tracer then adopts that span at `tool_start` instead of
 * starting a second one. A subagent's call asked for early therefore hangs under the main agent's
 * iteration rather than the subagent's (its trace id and the call's own span are right).
 */
import type { Span } from '@opentelemetry/api';

export class ToolSpans {
  private readonly open = new Map<string, Span>();
  private startEarly: ((toolUseId: string, toolName: string) => Span) | undefined;

  /** The tracer of the current turn: how a span is started before its `tool_start` is seen. */
  attach(startEarly: (toolUseId: string, toolName: string) => Span): void {
    this.startEarly = startEarly;
  }

  /** For a tool: its call's span, started now when the tracer has not seen the call yet. */
  spanFor(toolUseId: string, toolName: string): Span | undefined {
    const known = this.open.get(toolUseId);
    if (known || !this.startEarly) return known;
    const span = this.startEarly(toolUseId, toolName);
    this.open.set(toolUseId, span);
    return span;
  }

  /** For the tracer at `tool_start`: the span a tool already asked for, else it records `made()`. */
  adoptOr(toolUseId: string, made: () => Span): Span {
    const early = this.open.get(toolUseId);
    if (early) return early;
    const span = made();
    this.open.set(toolUseId, span);
    return span;
  }

  closed(toolUseId: string): void {
    this.open.delete(toolUseId);
  }
}
