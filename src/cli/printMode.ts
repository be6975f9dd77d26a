/**
 * `-p`: one user turn, printed as text, json or stream-json, and the exit status of its
 * terminal. stdout carries only the chosen format; diagnostics go to stderr.
 *
 * As in Claude Code's print mode: `json` prints the result object, or with `--verbose` one JSON
 * array of every line stream-json would print (init first, result last); `text` prints the final
 * answer whatever `--verbose` says. Partial messages (`stream_event`) exist only in stream-json.
 */
import { randomUUID } from 'node:crypto';
import { lastValueFrom, tap } from 'rxjs';
import { agentLoopWithSubagents } from '../agents/agentTree.js';
import type { LoopEvent, TerminalEvent } from '../loop/types.js';
import type { CliOptions } from './args.js';
import { describeRun, type PreparedRun } from './buildRun.js';
import { internalErrorTerminal } from './output/internalTerminal.js';
import { retryNotice } from './output/apiErrorText.js';
import { initLine, type StreamJsonMapper } from './output/streamJson.js';
import type { OutputLine, ResultLine } from './outputSchemas.js';
import { startNothingToClearTurn } from './streamInput/clearTurn.js';
import { startCompactTurn } from './streamInput/compactTurn.js';
import { localCommandOf, type LocalCommand } from './streamInput/localCommands.js';
import { startReportTurn } from './streamInput/reportTurn.js';
import type { RunningTurn } from './streamInput/runTurn.js';
import { createSessionTotals } from './output/runMapper.js';
import { assertNever } from '../util/assertNever.js';

export interface PrintIO {
  writeOut(text: string): void;
  writeErr(text: string): void;
  /** Sees every loop event (the debug log). */
  onEvent?(event: LoopEvent): void;
}

export async function runPrintMode(
  options: CliOptions,
  run: PreparedRun,
  mapper: StreamJsonMapper,
  prompt: string,
  signal: AbortSignal,
  io: PrintIO,
): Promise<number> {
  const local = localCommandOf(prompt);
  if (local) return printLocalCommand(options, run, local, io);
  const emit = (line: OutputLine) => io.writeOut(JSON.stringify(line) + '\n');
  const streaming = options.outputFormat === 'stream-json';
  /** `--output-format json --verbose`: every line, printed at the end as one array. */
  const collected: OutputLine[] | undefined = options.outputFormat === 'json' && options.verbose ? [] : undefined;
  if (streaming || collected) {
    (collected ? (l: OutputLine) => void collected.push(l) : emit)(
      initLine(describeRun(run), randomUUID()),
    );
  }
  let terminal: TerminalEvent | undefined;
  let resultLine: OutputLine | undefined;
  const startedAt = Date.now();
  const deliver = (event: LoopEvent) => {
    io.onEvent?.(event);
    // Text mode has no api_retry lines: a person waiting on stderr is told why nothing comes.
    if (options.outputFormat === 'text' && (event.type === 'api_retry' || event.type === 'stream_retry')) io.writeErr(`${retryNotice(event.retry)}\n`);
    const lines = mapper.map(event);
    if (event.type === 'terminal') {
      terminal = event;
      resultLine = lines.find((l) => l.type === 'result');
    }
    if (streaming) lines.forEach(emit);
    else if (collected) for (const line of lines) if (line.type !== 'stream_event') collected.push(line);
  };
  try {
    await lastValueFrom(agentLoopWithSubagents(run.loopOptions(prompt, signal)).pipe(run.traceTurn(), tap(deliver)), { defaultValue: undefined });
  } catch (error) {
    // The loop's contract is a terminal as its last event; should a bug break it, consumers of
    // the output still get their one result line (an error), never a silent end.
    if (terminal) throw error;
    deliver(internalErrorTerminal(error, startedAt, run.sessionId));
  }
  if (!terminal || !resultLine || resultLine.type !== 'result') {
    throw new Error('the agent loop ended without a terminal event');
  }
  if (terminal.messages) run.history = terminal.messages;
  return printOutcome(options, resultLine, collected, io);
}

/**
 * The end of a print-mode run: `json` prints the result (or with `--verbose` every line
 * collected), `text` the answer; a failure's reason goes to stderr. Answers the exit status.
 */
function printOutcome(options: CliOptions, resultLine: ResultLine, collected: readonly OutputLine[] | undefined, io: PrintIO): 0 | 1 {
  const code = resultLine.is_error ? 1 : 0;
  if (collected) io.writeOut(JSON.stringify(collected) + '\n');
  else if (options.outputFormat === 'json') io.writeOut(JSON.stringify(resultLine) + '\n');
  if (options.outputFormat === 'text' && code === 0) {
    const text = resultLine.result ?? '';
    io.writeOut(text.endsWith('\n') || text === '' ? text : `${text}\n`);
  }
  if (code !== 0) {
    const failure = resultLine.errors?.[0] ?? resultLine.result ?? resultLine.terminal_reason;
    // Claude Code's own line for API failures, unprefixed: scripts match `^API Error: <status>`.
    io.writeErr(failure.startsWith('API Error: ') ? `${failure}\n` : `rxagent: ${failure}\n`);
  }
  return code;
}

/**
 * `-p "/compact [instructions]"` (with `--resume`/`--continue`: the session's conversation is
 * compacted, as in stream-json), `-p "/clear"` (a -p run has no conversation left to go on
 * with, so nothing changes: an empty success), and the reports (`/cost`, `/context`, the
 * interactive-only note). None is sent to the model as text.
 */
function localTurn(run: PreparedRun, command: LocalCommand, emit: (line: OutputLine) => void): RunningTurn {
  switch (command.name) {
    case 'compact':
      return startCompactTurn({ run, instructions: command.instructions, emit });
    case 'clear':
      return startNothingToClearTurn(run, emit);
    case 'cost':
    case 'context':
    case 'interactive_only':
      // A -p run has spent nothing before its one prompt: /cost reports zeros (as a fresh Claude Code process does).
      return startReportTurn({ run, command, totals: createSessionTotals(run.maxOutputTokens), emit });
    default:
      return assertNever(command);
  }
}

async function printLocalCommand(options: CliOptions, run: PreparedRun, command: LocalCommand, io: PrintIO): Promise<number> {
  const lines: OutputLine[] = [];
  const emit = (line: OutputLine) => {
    lines.push(line);
    if (options.outputFormat === 'stream-json') io.writeOut(JSON.stringify(line) + '\n');
  };
  await localTurn(run, command, emit).done;
  const resultLine = lines.findLast((l): l is ResultLine => l.type === 'result');
  if (!resultLine) throw new Error(`/${command.name} ended without a result line`);
  return printOutcome(options, resultLine, options.outputFormat === 'json' && options.verbose ? lines : undefined, io);
}
