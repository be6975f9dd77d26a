/**
 * What reading or rebuilding a transcript had to skip or repair. Never fatal: a session must
 * resume whatever happened to its file, and the warnings say what was lost or made up.
 */
export type SessionWarning =
  /** The last line has no newline: the process died while writing it. The record is skipped. */
  | { readonly kind: 'partial_trailing_line'; readonly line: number; readonly message: string }
  /** A line in the middle is not JSON (a torn write followed by more appends). Skipped. */
  | { readonly kind: 'invalid_json'; readonly line: number; readonly message: string }
  /** A line is JSON but not a transcript record. Skipped. */
  | { readonly kind: 'invalid_record'; readonly line: number; readonly message: string }
  /** A record's parent is missing (its line was skipped); the chain goes on from the line before. */
  | { readonly kind: 'broken_chain'; readonly uuid: string; readonly message: string }
  /** An assistant tool_use had no tool_result; an error result was made up for it. */
  | { readonly kind: 'synthetic_tool_result'; readonly toolUseId: string; readonly message: string }
  /** A tool_result answering no tool_use of the message before it was dropped. */
  | { readonly kind: 'orphan_tool_result'; readonly toolUseId: string; readonly message: string }
  /** Something else the rebuild changed so the next request is valid. */
  | { readonly kind: 'repaired_view'; readonly message: string };

/** The `kind` of every session warning. */
export type SessionWarningKind = SessionWarning['kind'];
