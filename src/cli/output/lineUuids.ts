/**
 * Which transcript record each printed stream-json line showed, so `--resume-session-at` takes
 * the uuid of an SDK message (every `assistant`/`user` line carries one) as Claude Code does.
 * rxagent prints one line per content block, each with a fresh uuid, before the record of the
 * message exists; so the pairs are written beside the transcript as they become known
 * (`<session dir>/stream-json-lines.jsonl`, one `{"record", "lines"}` object a line) and read
 * back when a resume point is not a record's own uuid.
 */
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const LINE_UUIDS_FILE = 'stream-json-lines.jsonl';

export function lineUuidsPath(sessionDir: string): string {
  return join(sessionDir, LINE_UUIDS_FILE);
}

/** Appends one message's line uuids. Synchronous: a host may resume the moment the run exits. */
export function recordLineUuids(path: string, recordUuid: string, lines: readonly string[]): void {
  if (lines.length === 0) return;
  // Owner-only, as everything the session store writes.
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  appendFileSync(path, `${JSON.stringify({ record: recordUuid, lines })}\n`, { mode: 0o600 });
}

/** The record a printed line showed; undefined when the file or the line is not there (bad lines are skipped). */
export function recordOfLine(path: string, lineUuid: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
  for (const row of text.split('\n')) {
    if (!row.includes(lineUuid)) continue;
    try {
      const entry = JSON.parse(row) as { record?: unknown; lines?: unknown };
      if (typeof entry.record === 'string' && Array.isArray(entry.lines) && entry.lines.includes(lineUuid)) return entry.record;
    } catch {
      // A torn last line (a crash mid-write) names nothing.
    }
  }
  return undefined;
}
