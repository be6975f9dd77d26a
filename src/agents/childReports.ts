/**
 * `reportChild(child)`: the one reading of a subagent's events, shared by the foreground Agent
 * call (agentTool.ts) and the tree's background children (backgroundChildren.ts). Each child
 * event is wrapped once in its `SubagentEventData` envelope (events.ts); right after the child's
 * terminal comes its outcome (the answer, or the failure text the parent's model reads). A child
 * that completes without a terminal ends with a failure outcome, so every reader gets exactly
 * one `end`.
 *
 * ```
 * child:   -i-a-t-(T|)
 * reports: -e-e-e-(e E|)     e = the event in its envelope, E = the outcome of T
 * ```
 *
 * What the reader does with the two kinds is its own job: the Agent call yields them as its
 * progress and its result; a background child reports them through the tree's output and a
 * notification.
 */
import { Observable } from 'rxjs';
import { subscribeLinked } from '../../operators/internal/subscribeLinked.js';
import { isCancelledTerminal, isErrorTerminal, type LoopEvent, type TerminalEvent } from '../loop/types.js';
import type { AgentToolOutput } from './agentTool.js';
import type { SubagentEventData } from './events.js';
import { childFailureText, NO_FINAL_MESSAGE, type ChildSummary } from './texts.js';

/** Who a started child is: everything its envelope says besides the event. */
export interface ChildIdentity {
  readonly agentId: string;
  /** The definition's name (`subagent_type`). */
  readonly agentType: string;
  /** 1 for a child of the top-level loop. */
  readonly agentDepth: number;
  /** The tool_use id of the Agent call that started it. */
  readonly parentToolUseId: string;
  readonly background: boolean;
}

/** One started child: who it is and its events (cold; completes after its terminal). */
export interface StartedChild extends ChildIdentity {
  /** Its terminal's `costUsd` is the child's subtree cost (itself and its own subagents). */
  readonly events$: Observable<LoopEvent>;
}

/** A child's end: a successful answer, or a failure text for an error result. */
export type ChildOutcome =
  | { readonly ok: true; readonly output: AgentToolOutput & { readonly status: 'completed' } }
  | { readonly ok: false; readonly text: string };

export type ChildReport =
  | { readonly type: 'event'; readonly data: SubagentEventData }
  | { readonly type: 'end'; readonly outcome: ChildOutcome };

/**
 * The child's events in their envelopes, then its outcome (see the file comment). One
 * subscriber, no inner Observable per event: a `mergeMap` to an array subscribed one per child
 * event, and subagents stream as many events as the top-level loop.
 */
export function reportChild(child: StartedChild): Observable<ChildReport> {
  return new Observable<ChildReport>((subscriber) => {
    let ended = false;
    // Linked before the child runs: an unsubscribe in the middle of a synchronous child stops it at once.
    subscribeLinked(child.events$, subscriber, {
      next: (event) => {
        try {
          subscriber.next({ type: 'event', data: envelope(child, event) });
          if (event.type !== 'terminal') return;
          ended = true;
          const summary: ChildSummary = { agentId: child.agentId, agentType: child.agentType, terminal: event, costUsd: event.costUsd };
          subscriber.next({ type: 'end', outcome: childOutcome(summary) });
        } catch (error) {
          // As an operator would: a failure building the report errors the reports, it is not thrown into the child.
          subscriber.error(error);
        }
      },
      error: (error: unknown) => subscriber.error(error),
      complete: () => {
        // Cannot happen with a loop (its last event is its terminal), but a reader must not wait
        // for an end that never comes.
        if (!ended) subscriber.next({ type: 'end', outcome: { ok: false, text: `subagent ${child.agentId} ended without a result` } });
        subscriber.complete();
      },
    });
  });
}

/** A child's end as the parent sees it: an error or cancelled terminal is a failure. */
export function childOutcome(summary: ChildSummary): ChildOutcome {
  const t: TerminalEvent = summary.terminal;
  if (isErrorTerminal(t.reason) || isCancelledTerminal(t.reason)) return { ok: false, text: childFailureText(summary) };
  return {
    ok: true,
    output: {
      status: 'completed',
      agentId: summary.agentId,
      agentType: summary.agentType,
      answer: t.lastAssistantText ?? NO_FINAL_MESSAGE,
      terminalReason: t.reason,
      turns: t.turnCount,
      usage: t.usage,
      costUsd: summary.costUsd,
    },
  };
}

// One literal with the fields in one order: every envelope has the same shape (and so the same
// hidden class), and stream-json writes its keys in this order.
function envelope(child: ChildIdentity, event: LoopEvent): SubagentEventData {
  return {
    type: 'subagent_event',
    agentId: child.agentId,
    agentType: child.agentType,
    agentDepth: child.agentDepth,
    parentToolUseId: child.parentToolUseId,
    background: child.background,
    event,
  };
}
