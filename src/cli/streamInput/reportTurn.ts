/**
 * Claude Code's built-ins that only report on the session, sent as a prompt (a stream-json user
 * message or `-p`): `/cost` (alias `/usage`) and `/context`. Nothing goes to the model; the
 * report is printed as the SDK's `system/local_command_output` line and is the `result` text.
 * The built-ins that need the interactive view (a picker, a dialog, the terminal) answer that
 * they do, the same way, instead of reaching the model as text.
 */
import { randomUUID } from 'node:crypto';
import { describeRun, type PreparedRun } from '../buildRun.js';
import { createRunMapper, type SessionTotals } from '../output/runMapper.js';
import { initLine } from '../output/streamJson.js';
import type { OutputLine } from '../outputSchemas.js';
import { assertNever } from '../../util/assertNever.js';
import { contextText, contextUsage } from './contextUsage.js';
import { localTerminal, type LocalCommand } from './localCommands.js';
import { costText } from './usageAnswers.js';
import type { RunningTurn } from './runTurn.js';

export type ReportCommand = Extract<LocalCommand, { name: 'cost' | 'context' | 'interactive_only' }>;

export function reportText(command: ReportCommand, run: PreparedRun, totals: SessionTotals): string {
  switch (command.name) {
    case 'cost':
      return costText(totals, Date.now());
    case 'context':
      return contextText(contextUsage(run, totals.lastUsage), run.history.length);
    case 'interactive_only':
      return `/${command.command} needs the interactive view (rxagent without -p); nothing was sent to the model.`;
    default:
      return assertNever(command);
  }
}

export function startReportTurn(options: { readonly run: PreparedRun; readonly command: ReportCommand; readonly totals: SessionTotals; readonly emit: (line: OutputLine) => void }): RunningTurn {
  const { run, emit, totals } = options;
  const startedAt = Date.now();
  const mapper = createRunMapper(run, { includePartialMessages: false, totals });
  emit(initLine(describeRun(run), randomUUID()));
  const content = reportText(options.command, run, totals);
  emit({ type: 'system', subtype: 'local_command_output', session_id: run.sessionId, uuid: randomUUID(), content });
  emit(mapper.result(localTerminal(run, startedAt, { reason: 'completed', text: content })));
  return { submit: () => false, interrupt: () => undefined, mapper, done: Promise.resolve(0) };
}
