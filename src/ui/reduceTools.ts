/** Tool calls in the view: started, progressing (a subagent's events nest under its Agent call), finished. */
import { isSubagentEventData, type SubagentEventData } from '../agents/events.js';
import type { ToolResultBlock } from '../protocol/content.js';
import { abortedBeforeStartText, cancelledText, interruptedText, notStartedInterruptedText } from '../tools/errorTexts.js';
import { fileChangeDiff } from './diff.js';
import { resultView } from './parts.js';
import type { AgentView, MessageView, ToolPart, ToolStatus, TurnView } from './types.js';
import { MAX_PROGRESS } from './types.js';
import { emptyView, updateItem, updateTool } from './viewState.js';

export function startTool(view: AgentView, toolUseId: string, input: unknown, at: number | undefined): AgentView {
  return updateTool(view, toolUseId, (part) => ({
    ...part,
    status: 'running',
    startedAt: at,
    // Hooks or the permission answer may have rewritten the input: show what really runs.
    ...(input === part.input ? {} : { input, diff: fileChangeDiff(part.name, input) }),
  }));
}

export function progressTool(
  view: AgentView,
  toolUseId: string,
  data: unknown,
  at: number | undefined,
  reduceNested: (view: AgentView, event: SubagentEventData['event'], at: number | undefined) => AgentView,
): AgentView {
  if (isSubagentEventData(data)) {
    return updateTool(view, toolUseId, (part) => {
      const before = part.subagent?.view ?? emptyView();
      const after = reduceNested(before, data.event, at);
      if (part.subagent && after === before) return part;
      return {
        ...part,
        subagent: { agentId: data.agentId, agentType: data.agentType, background: data.background, depth: data.agentDepth, view: after },
      };
    });
  }
  return updateTool(view, toolUseId, (part) => ({
    ...part,
    progress: part.progress.length >= MAX_PROGRESS ? [...part.progress.slice(1 - MAX_PROGRESS), data] : [...part.progress, data],
  }));
}

/**
 * The status a result means. Cancellation is told by the loop's own result texts for a call that
 * was stopped (abort, interrupt), the same functions the scheduler writes them with.
 */
export function statusOfResult(name: string, result: ToolResultBlock): ToolStatus {
  if (result.is_error !== true) return 'done';
  const text = resultView(result).text;
  const stopped = [cancelledText(name), interruptedText(name), notStartedInterruptedText(name), abortedBeforeStartText(name)];
  return stopped.includes(text) ? 'cancelled' : 'error';
}

export function finishTool(view: AgentView, toolUseId: string, name: string, result: ToolResultBlock, durationMs: number): AgentView {
  return updateTool(view, toolUseId, (part) => ({
    ...part,
    status: statusOfResult(name, result),
    result: resultView(result),
    durationMs,
  }));
}

const unfinished = (part: ToolPart) => part.status === 'pending' || part.status === 'running';

/** A run ended: calls of this turn that never got a result were cancelled with it. */
export function cancelUnfinished(turn: TurnView): TurnView {
  let next = turn;
  turn.items.forEach((item, index) => {
    if (item.kind !== 'message' || !item.parts.some((p) => p.kind === 'tool' && unfinished(p))) return;
    next = updateItem(next, index, (m) => ({
      ...(m as MessageView),
      parts: (m as MessageView).parts.map((p) => (p.kind === 'tool' && unfinished(p) ? { ...p, status: 'cancelled' as const } : p)),
    }));
  });
  return next;
}
