/**
 * `get_settings` (the SDK's `ResolvedSettings` shape: `effective`, `provenance`, `sources`):
 * what each settings source the session reads holds, as written, lowest precedence first, and
 * their merge. The files are read again per request, so a file edited since the start shows its
 * new text (as Claude Code answers); a file that is absent is left out, one that is not JSON
 * is named with an empty `settings` rather than failing the whole answer.
 *
 * The merge is the one settings tiers get: objects merge key by key, arrays join without
 * duplicates (rule lists add up), anything else is taken from the higher source.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { SettingSourceName } from '../../hooks/settings.js';

export interface SettingsViewInputs {
  readonly cwd: string;
  readonly homeDir: string;
  /** `--settings` (a file or inline JSON). */
  readonly settingsFile?: string;
  /** `--managed-settings` (the policy tier). */
  readonly managedSettings?: string;
  /** `--setting-sources` (default: every source). */
  readonly sources?: readonly SettingSourceName[];
}

type Source = SettingSourceName | 'flag' | 'managed';
interface SourceEntry {
  readonly source: Source;
  readonly settings: Record<string, unknown>;
  readonly path?: string;
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Pure: `high` over `low` as settings tiers merge. */
export function mergeSettingsValues(low: unknown, high: unknown): unknown {
  if (Array.isArray(low) && Array.isArray(high)) {
    const seen = new Set(low.map((v) => JSON.stringify(v)));
    return [...low, ...high.filter((v) => !seen.has(JSON.stringify(v)))];
  }
  if (isRecord(low) && isRecord(high)) {
    const out: Record<string, unknown> = { ...low };
    for (const [key, value] of Object.entries(high)) out[key] = key in low ? mergeSettingsValues(low[key], value) : value;
    return out;
  }
  return high;
}

/** Pure: the answer from the sources, lowest precedence first. */
export function resolvedSettings(sources: readonly SourceEntry[]): Record<string, unknown> {
  let effective: Record<string, unknown> = {};
  const provenance: Record<string, { source: Source; path?: string }> = {};
  for (const entry of sources) {
    effective = mergeSettingsValues(effective, entry.settings) as Record<string, unknown>;
    for (const key of Object.keys(entry.settings)) provenance[key] = { source: entry.source, ...(entry.path ? { path: entry.path } : {}) };
  }
  return { effective, provenance, sources: sources.map((s) => ({ ...s })) };
}

async function fileEntry(source: Source, path: string): Promise<SourceEntry | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const value: unknown = JSON.parse(text);
    return { source, settings: isRecord(value) ? value : {}, path };
  } catch {
    return { source, settings: {}, path };
  }
}

/** A command-line layer: inline JSON (text starting with `{`) or a file. */
async function flagEntry(source: Source, given: string | undefined, cwd: string): Promise<SourceEntry | undefined> {
  if (given === undefined) return undefined;
  if (!given.trimStart().startsWith('{')) return fileEntry(source, resolve(cwd, given));
  try {
    const value: unknown = JSON.parse(given);
    return { source, settings: isRecord(value) ? value : {} };
  } catch {
    return { source, settings: {} };
  }
}

export async function settingsView(inputs: SettingsViewInputs): Promise<Record<string, unknown>> {
  const cwd = resolve(inputs.cwd);
  const wanted = new Set<SettingSourceName>(inputs.sources ?? ['user', 'project', 'local']);
  // The same files, in the same order, that the run's settings were loaded from.
  const files: ReadonlyArray<readonly [SettingSourceName, string]> = [
    ['user', join(inputs.homeDir, '.rxagent', 'settings.json')],
    ['user', join(inputs.homeDir, '.claude', 'settings.json')],
    ['project', join(cwd, '.rxagent', 'settings.json')],
    ['project', join(cwd, '.claude', 'settings.json')],
    ['local', join(cwd, '.claude', 'settings.local.json')],
  ];
  const read = await Promise.all(files.filter(([source]) => wanted.has(source)).map(([source, path]) => fileEntry(source, path)));
  const layers = [...read, await flagEntry('flag', inputs.settingsFile, cwd), await flagEntry('managed', inputs.managedSettings, cwd)];
  return resolvedSettings(layers.filter((l): l is SourceEntry => l !== undefined));
}
