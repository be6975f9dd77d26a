/**
 * Claude Code's Bash variables: `BASH_DEFAULT_TIMEOUT_MS` (a call's timeout when the model gives
 * none), `BASH_MAX_TIMEOUT_MS` (the most it may ask for), `BASH_MAX_OUTPUT_LENGTH` (characters of
 * output the model sees). A value that is not a positive whole number is a configuration error
 * naming the variable, not a silent default.
 */
import { ConfigurationError } from '../errors.js';
import type { BashToolOptions } from '../tools/builtin/bash.js';

type BashLimits = Pick<BashToolOptions, 'defaultTimeoutMs' | 'maxTimeoutMs' | 'maxOutputChars'>;

export function bashLimitsFromEnv(env: Readonly<Record<string, string | undefined>>): BashLimits {
  const read = (name: string): number | undefined => {
    const value = env[name];
    if (value === undefined || value === '') return undefined;
    const n = Number(value);
    if (!Number.isInteger(n) || n <= 0) throw new ConfigurationError(`${name} must be a positive whole number (got '${value}')`);
    return n;
  };
  const defaultTimeoutMs = read('BASH_DEFAULT_TIMEOUT_MS');
  const maxTimeoutMs = read('BASH_MAX_TIMEOUT_MS');
  const maxOutputChars = read('BASH_MAX_OUTPUT_LENGTH');
  return {
    ...(defaultTimeoutMs === undefined ? {} : { defaultTimeoutMs }),
    ...(maxTimeoutMs === undefined ? {} : { maxTimeoutMs }),
    ...(maxOutputChars === undefined ? {} : { maxOutputChars }),
  };
}
