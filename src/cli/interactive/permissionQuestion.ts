/**
 * What a permission question shows (pure): which tool, the whole command (wrapped, with hidden
 * characters shown escaped), the working directory it runs in, why it asks, and for Edit/Write the
 * diff. The choices are yes / yes and don't ask again (with the rule that would be saved) / no.
 */
import type { PermissionRequest } from '../../permissions/createPermissionPolicy.js';
import { callDiff, type DiffLine } from './callDiff.js';
import { approvalParts, escapeForTerminal } from '../../util/escapeForTerminal.js';

export type Paint = (style: 'red' | 'green' | 'yellow' | 'cyan' | 'dim' | 'bold', text: string) => string;

export type QuestionAnswer = 'yes' | 'always' | 'no';

/** Diff lines shown in a question; past this the rest is counted, not shown. */
export const MAX_QUESTION_DIFF_LINES = 200;

const field = (input: unknown, key: string): string | undefined => {
  if (typeof input !== 'object' || input === null) return undefined;
  const value = (input as Record<string, unknown>)[key];
  return typeof value === 'string' ? value : undefined;
};

/**
 * The rule "don't ask again" saves: the exact command for Bash (a prefix rule would also allow
 * whatever follows the prefix, which the person did not see), the file for file tools, else the
 * whole tool.
 */
export function proposedRule(toolName: string, input: unknown): string {
  const command = field(input, 'command');
  if (toolName === 'Bash' && command !== undefined && !/[()\n]/.test(command)) return `Bash(${command.trim()})`;
  const path = field(input, 'file_path') ?? field(input, 'path');
  if (path !== undefined && !/[()\n]/.test(path)) return `${toolName}(${path})`;
  return toolName;
}

export function diffLine(d: DiffLine, paint: Paint): string {
  switch (d.kind) {
    case 'hunk':
      return paint('cyan', d.text);
    case 'removed':
      return paint('red', d.text);
    case 'added':
      return paint('green', d.text);
    case 'context':
      return paint('dim', d.text);
  }
}

/** The question printed above the choices (it scrolls like output, so a long diff is kept whole to read). */
export function questionLines(request: PermissionRequest, cwd: string, columns: number, paint: Paint): string[] {
  const lines = [paint('yellow', `? ${request.toolName} needs your approval`)];
  const main = field(request.input, 'command') ?? field(request.input, 'file_path') ?? field(request.input, 'pattern') ?? field(request.input, 'path');
  // The shared escaper lays the command out (#15): whole, escaped, wrapped 4 columns in and one
  // short of the edge; its note counts what was written out, so a hidden sequence is noticed.
  const parts = approvalParts(main ?? JSON.stringify(request.input), { cwd, width: columns - 3 });
  for (const row of parts.rows) lines.push(`    ${main === undefined ? row : paint('bold', row)}`);
  if (parts.note !== undefined) lines.push(`    ${paint('yellow', parts.note)}`);
  const description = field(request.input, 'description');
  if (description !== undefined) lines.push(`    ${paint('dim', escapeForTerminal(description).text)}`);
  lines.push(`  ${paint('dim', parts.cwd)}`);
  const diff = callDiff(request.toolName, request.input, cwd);
  for (const d of diff.slice(0, MAX_QUESTION_DIFF_LINES)) lines.push(`    ${diffLine({ ...d, text: escapeForTerminal(d.text, { newlines: 'escape' }).text }, paint)}`);
  if (diff.length > MAX_QUESTION_DIFF_LINES) lines.push(`    ${paint('dim', `… ${diff.length - MAX_QUESTION_DIFF_LINES} more diff lines`)}`);
  lines.push(`  ${paint('dim', `(${request.reason})`)}`);
  return lines;
}

export function questionOptions(request: PermissionRequest): Array<{ label: string; value: QuestionAnswer }> {
  return [
    { label: 'Yes', value: 'yes' },
    { label: `Yes, and don't ask again for ${escapeForTerminal(proposedRule(request.toolName, request.input), { newlines: 'escape' }).text} in this project`, value: 'always' },
    { label: 'No, and tell the model what to do instead', value: 'no' },
  ];
}
