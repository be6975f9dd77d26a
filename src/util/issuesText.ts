/**
 * Zod's issues as one line a person reads: `path: message; path: message`. Every place that
 * reports a failed safeParse says it the same way; only the name of the whole value (when an
 * issue has no path) and how many issues are worth showing differ.
 */
import type { z } from 'zod';

export interface IssuesTextOptions {
  /** What an issue without a path is about, e.g. `(root)` or `record`. */
  readonly whole: string;
  /** Show at most this many (the first ones); all by default. */
  readonly max?: number;
  readonly separator?: string;
}

export function issuesText(issues: readonly z.core.$ZodIssue[], { whole, max, separator = '; ' }: IssuesTextOptions): string {
  return (max === undefined ? issues : issues.slice(0, max))
    .map((issue) => `${issue.path.map(String).join('.') || whole}: ${issue.message}`)
    .join(separator);
}
