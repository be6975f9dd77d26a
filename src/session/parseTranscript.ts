/**
 * Parses the text of a JSONL transcript into records, skipping (with a warning naming the line)
 * whatever cannot be trusted: a trailing line without its newline (the writer died mid-write) and
 * corrupt lines in the middle. Pure and linear: one JSON.parse and one shape check per line (the
 * fast check of recordShape.ts, with the zod schema deciding whatever it is unsure about).
 */
import { isPlainSessionRecord } from './recordShape.js';
import { sessionRecordSchema, type SessionRecord } from './records.js';
import type { SessionWarning } from './warnings.js';
import { issuesText } from '../util/issuesText.js';

/** The records of a transcript, and what could not be read. */
export interface ParsedTranscript {
  readonly records: SessionRecord[];
  readonly warnings: SessionWarning[];
}

/** Parses a JSONL transcript: one record per line; bad lines are reported, never fatal. */
export function parseTranscript(text: string): ParsedTranscript {
  const records: SessionRecord[] = [];
  const warnings: SessionWarning[] = [];
  let start = 0;
  let lineNumber = 0;
  while (start < text.length) {
    lineNumber++;
    const end = text.indexOf('\n', start);
    if (end === -1) {
      // Every append ends with '\n', so a last line without one was cut off by a crash. Even if
      // it happens to parse, its append never resolved: the loop never relied on it.
      warnings.push({
        kind: 'partial_trailing_line',
        line: lineNumber,
        message: `line ${lineNumber}: the last line is incomplete (${text.length - start} bytes without a newline; the writer stopped mid-write) and was skipped`,
      });
      break;
    }
    const line = text.slice(start, end);
    start = end + 1;
    if (line.trim() === '') continue;
    parseLine(line, lineNumber, records, warnings);
  }
  return { records, warnings };
}

function parseLine(line: string, lineNumber: number, records: SessionRecord[], warnings: SessionWarning[]): void {
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch (error) {
    warnings.push({
      kind: 'invalid_json',
      line: lineNumber,
      message: `line ${lineNumber}: not valid JSON (${error instanceof Error ? error.message : String(error)}); skipped: ${preview(line)}`,
    });
    return;
  }
  if (isPlainSessionRecord(json)) {
    records.push(json);
    return;
  }
  const parsed = sessionRecordSchema.safeParse(json);
  if (!parsed.success) {
    const issues = issuesText(parsed.error.issues, { whole: 'record', max: 3 });
    warnings.push({ kind: 'invalid_record', line: lineNumber, message: `line ${lineNumber}: not a transcript record (${issues}); skipped` });
    return;
  }
  records.push(parsed.data);
}

function preview(line: string): string {
  return JSON.stringify(line.length > 60 ? `${line.slice(0, 60)}…` : line);
}
