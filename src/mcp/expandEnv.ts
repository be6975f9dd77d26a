/**
 * `${VAR}` and `${VAR:-default}` in MCP server configurations, expanded as Claude Code does: in
 * `command`, `args`, `env` values, `url` and `headers` values. A variable that is unset (and has
 * no default) is collected rather than silently replaced by nothing, so the caller can report
 * which ones are missing.
 */

const REFERENCE = /\$\{([^}:]+)(?::-([^}]*))?\}/g;

export interface Expanded<T> {
  readonly value: T;
  /** Names referenced without a default and not set, in order of first use. */
  readonly missing: readonly string[];
}

export type EnvLookup = Readonly<Record<string, string | undefined>>;

/** Expands one string; an unset variable without a default is left as written and listed. */
export function expandString(text: string, env: EnvLookup, missing: string[]): string {
  return text.replace(REFERENCE, (whole, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined) return value;
    if (fallback !== undefined) return fallback;
    if (!missing.includes(name)) missing.push(name);
    return whole;
  });
}

/** Expands every string of a record's values (env, headers). */
export function expandRecord(
  record: Readonly<Record<string, string>> | undefined,
  env: EnvLookup,
  missing: string[],
): Record<string, string> | undefined {
  if (record === undefined) return undefined;
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, expandString(value, env, missing)]));
}
