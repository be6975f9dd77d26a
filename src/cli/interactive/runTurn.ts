/**
 * One user turn of the interactive view: the agent tree runs the prompt, its events are rendered
 * and printed, running tools are tracked for the live lines, a line typed meanwhile is handed to
 * the turn (or, if the turn ended before taking it, comes back to be the next turn), and the
 * run's totals and context use are updated. The terminal's history becomes the next turn's start.
 */
import { lastValueFrom, tap } from 'rxjs';
import { createAgentTreeRun } from '../../agents/createAgentTreeRun.js';
import type { TerminalEvent } from '../../loop/types.js';
import type { PreparedRun } from '../buildRun.js';
import { exitCodeOf } from '../output/resultLine.js';
import type { LiveTools } from './liveTools.js';
import type { MarkdownStream } from './markdown.js';
import { createTerminalRenderer, summarizeToolInput, type TerminalRenderer } from './render.js';
import { contextTokensOf, type RunTotals } from './statusLine.js';

export interface TurnHooks {
  readonly color: boolean;
  readonly markdown?: MarkdownStream;
  readonly live: LiveTools;
  readonly print: (text: string) => void;
  /** Called when the turn starts, with what a line typed meanwhile should be given to. */
  readonly started: (submit: (text: string) => boolean, renderer: TerminalRenderer) => void;
  readonly waitedMs: (toolUseId: string) => number;
  /** A submission the turn ended without taking. */
  readonly returned: (text: string) => void;
  /** The context now holds this many tokens (after each response). */
  readonly contextUsed: (tokens: number) => void;
}

export interface TurnOutcome {
  readonly code: number;
  readonly terminal: TerminalEvent;
}

export function addTotals(totals: RunTotals, terminal: TerminalEvent): RunTotals {
  const u = terminal.usage;
  return {
    turns: totals.turns + terminal.turnCount,
    costUsd: totals.costUsd + terminal.costUsd,
    inputTokens: totals.inputTokens + u.inputTokens,
    outputTokens: totals.outputTokens + u.outputTokens,
    cacheReadTokens: totals.cacheReadTokens + u.cacheReadInputTokens,
    cacheWriteTokens: totals.cacheWriteTokens + u.cacheCreationInputTokens,
    turnMs: totals.turnMs + terminal.durationMs,
  };
}

export async function runTurn(run: PreparedRun, prompt: string, signal: AbortSignal, hooks: TurnHooks): Promise<TurnOutcome> {
  const renderer = createTerminalRenderer({
    color: hooks.color,
    waitedMs: hooks.waitedMs,
    ...(hooks.markdown ? { markdown: hooks.markdown } : {}),
  });
  let terminal: TerminalEvent | undefined;
  const agentRun = createAgentTreeRun(run.loopOptions(prompt, signal));
  const submitted = new Map<string, string>();
  hooks.started((text) => {
    const handle = agentRun.submit(text);
    if (handle.accepted) submitted.set(handle.id, text);
    return handle.accepted;
  }, renderer);
  try {
    await lastValueFrom(
      agentRun.events$.pipe(
        run.traceTurn(),
        tap((event) => {
          // Only the root's own calls get lines; a subagent's calls are inside its Agent line.
          if (event.type === 'tool_start' && event.depth === 0) {
            hooks.live.start(event.toolUseId, `${event.name} ${summarizeToolInput(event.name, event.input)}`.trim(), Date.now());
          }
          if (event.type === 'tool_result') hooks.live.finish(event.toolUseId);
          if (event.type === 'assistant_message' && event.depth === 0) hooks.contextUsed(contextTokensOf(event.message.usage));
          if (event.type === 'command_lifecycle' && event.status === 'discarded') {
            const text = submitted.get(event.id);
            if (text !== undefined) hooks.returned(text);
          }
          if (event.type === 'terminal') {
            terminal = event;
            hooks.live.clear();
          }
          hooks.print(renderer.render(event));
        }),
      ),
      { defaultValue: undefined },
    );
  } finally {
    // Whatever ended the turn, no live line outlives it.
    hooks.live.clear();
  }
  if (!terminal) throw new Error('the agent loop ended without a terminal event');
  if (terminal.messages) run.history = terminal.messages;
  return { code: exitCodeOf(terminal.reason), terminal };
}
