/**
 * One turn of a stream-json session: `system/init`, the turn's lines, and one `result`, as
 * Claude Code prints them per user message. The turn runs on `createAgentTreeRun`, so user
 * messages that arrive while it runs are submitted into it (absorbed after the current tool
 * batch, or one more iteration when it is ending) instead of waiting for the next turn.
 */
import { randomUUID } from 'node:crypto';
import type { Subscription } from 'rxjs';
import { createAgentTreeRun } from '../../agents/createAgentTreeRun.js';
import type { LoopEvent, TerminalEvent } from '../../loop/types.js';
import type { MessageParam } from '../../protocol/content.js';
import { describeRun, type PreparedRun } from '../buildRun.js';
import { initLine, type StreamJsonMapper } from '../output/streamJson.js';
import { createRunMapper, type SessionTotals } from '../output/runMapper.js';
import { internalErrorTerminal } from '../output/internalTerminal.js';
import { lineChangesOfEvent } from '../output/lineChanges.js';
import type { OutputLine } from '../outputSchemas.js';

export interface TurnOptions {
  readonly run: PreparedRun;
  readonly prompt: MessageParam;
  /** The host composed the prompt (client_composed): no MCP prompt command is expanded in it. */
  readonly verbatim?: boolean;
  readonly includePartialMessages: boolean;
  readonly emit: (line: OutputLine) => void;
  /** Sees every loop event (the debug log). */
  readonly onEvent?: (event: LoopEvent) => void;
  /** The session's running totals: this turn's result includes the earlier turns', and adds its own. */
  readonly totals?: SessionTotals;
  /** The turn's deadline (`--timeout`): when it passes, the turn ends as an interrupt and `onDeadline` is told. */
  readonly deadlineMs?: number;
  readonly onDeadline?: () => void;
}

export interface RunningTurn {
  /** False when the turn is ending and takes no more input (it then goes to the next turn). */
  submit(message: MessageParam): boolean;
  /** Ends the turn as an interrupt (its result is still printed). */
  interrupt(): void;
  readonly mapper: StreamJsonMapper;
  /** Settles with the exit status of the turn's result once its last line is printed. */
  readonly done: Promise<0 | 1>;
}

export function startTurn(options: TurnOptions): RunningTurn {
  const { run, emit } = options;
  const controller = new AbortController();
  const mapper = createRunMapper(run, { includePartialMessages: options.includePartialMessages, ...(options.totals ? { totals: options.totals } : {}) });
  emit(initLine(describeRun(run), randomUUID()));
  const { expandPrompt, ...loopOptions } = run.loopOptions(options.prompt, controller.signal);
  const agentRun = createAgentTreeRun(options.verbatim || !expandPrompt ? loopOptions : { ...loopOptions, expandPrompt });
  let terminal: TerminalEvent | undefined;
  let failed = true;
  let subscription: Subscription | undefined;
  const startedAt = Date.now();

  const deliver = (event: LoopEvent) => {
    options.onEvent?.(event);
    const totals = options.totals;
    if (event.type === 'assistant_message' && event.depth === 0 && totals) totals.lastUsage = event.message.usage;
    if (totals && (event.type === 'tool_result' || event.type === 'tool_progress')) {
      const changed = lineChangesOfEvent(event);
      totals.linesAdded += changed.added;
      totals.linesRemoved += changed.removed;
    }
    if (event.type === 'terminal') {
      terminal = event;
      if (event.messages) run.history = event.messages;
      if (totals) {
        totals.costUsd += event.costUsd;
        totals.turns += event.turnCount;
        totals.turnMs += event.durationMs;
      }
    }
    for (const line of mapper.map(event)) {
      if (line.type === 'result') {
        failed = line.is_error;
        if (totals) totals.apiMs += line.duration_api_ms;
      }
      emit(line);
    }
  };

  const done = new Promise<0 | 1>((resolve) => {
    subscription = agentRun.events$.pipe(run.traceTurn()).subscribe({
      next: deliver,
      error: (error: unknown) => {
        // The loop's contract is a terminal last; should a bug break it, the host still gets its result line.
        if (!terminal) {
          deliver(internalErrorTerminal(error, startedAt, run.sessionId));
        }
        resolve(1);
      },
      complete: () => resolve(terminal && !failed ? 0 : 1),
    });
  });

  const deadline =
    options.deadlineMs === undefined
      ? undefined
      : setTimeout(() => {
          options.onDeadline?.();
          controller.abort();
        }, options.deadlineMs);
  return {
    submit: (message) => agentRun.submit(message).accepted,
    interrupt: () => controller.abort(),
    mapper,
    done: done.finally(() => {
      clearTimeout(deadline);
      subscription?.unsubscribe();
    }),
  };
}
