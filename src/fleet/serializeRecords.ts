/**
 * Turns one `append` into the rows the PostgreSQL store writes: each record checked to belong to
 * the session and (optionally) against the schema, then serialized with secrets replaced. All or
 * nothing: one bad record rejects the whole append before anything is written.
 */
import { InvalidSessionRecordError } from '../session/errors.js';
import { sessionRecordSchema, type SessionRecord } from '../session/records.js';

export interface SerializeOptions {
  readonly validate: boolean;
  /** Strings replaced by `[redacted]` (only those of 8 characters or more are given here). */
  readonly secrets: readonly string[];
}

/** The JSON text of each record, or the typed error naming the first bad one. */
export function serializeRecords(
  sessionId: string,
  records: readonly SessionRecord[],
  { validate, secrets }: SerializeOptions,
): string[] | InvalidSessionRecordError {
  const bodies: string[] = [];
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (record.sessionId !== sessionId) {
      return new InvalidSessionRecordError(sessionId, i, `it belongs to session ${JSON.stringify(record.sessionId)}`);
    }
    if (validate) {
      const parsed = sessionRecordSchema.safeParse(record);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        return new InvalidSessionRecordError(sessionId, i, issue ? `${issue.path.join('.') || 'record'}: ${issue.message}` : 'schema mismatch');
      }
    }
    let body = JSON.stringify(record);
    for (const secret of secrets) if (body.includes(secret)) body = body.split(secret).join('[redacted]');
    bodies.push(body);
  }
  return bodies;
}
