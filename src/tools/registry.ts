/**
 * Tool lookup by name or alias, built once per tool set (not per call), and the "did you mean"
 * suggestions for an unknown name.
 */
import { ConfigurationError } from '../errors.js';
import type { Tool } from './types.js';

/** A tool set indexed by name and alias, built once per array so a lookup per call is O(1). */
export interface ToolRegistry {
  readonly tools: readonly Tool[];
  /** Names and aliases to tools. */
  readonly byName: ReadonlyMap<string, Tool>;
}

const cache = new WeakMap<readonly Tool[], ToolRegistry>();

/**
 * Indexes tools by name and alias. The result is cached per array, so passing the same array
 * again is free.
 * @throws ConfigurationError when two tools claim the same name or alias.
 */
export function createToolRegistry(tools: readonly Tool[]): ToolRegistry {
  const cached = cache.get(tools);
  if (cached) return cached;
  const byName = new Map<string, Tool>();
  for (const tool of tools) {
    for (const name of [tool.name, ...(tool.aliases ?? [])]) {
      const other = byName.get(name);
      if (other && other !== tool) {
        throw new ConfigurationError(`tools ${other.name} and ${tool.name} both claim the name ${name}`);
      }
      byName.set(name, tool);
    }
  }
  const registry: ToolRegistry = { tools, byName };
  cache.set(tools, registry);
  return registry;
}

export function toRegistry(tools: readonly Tool[] | ToolRegistry): ToolRegistry {
  return isRegistry(tools) ? tools : createToolRegistry(tools);
}

function isRegistry(tools: readonly Tool[] | ToolRegistry): tools is ToolRegistry {
  return !Array.isArray(tools);
}

/** Levenshtein distance, case-insensitive (models often get only the case wrong). */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let previous = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const current = [i];
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
    }
    previous = current;
  }
  return previous[t.length]!;
}

/**
 * Up to `limit` known names close to `name`: within a third of its length in edits (at least 2),
 * or containing it / contained in it; nearest first.
 */
export function closestToolNames(name: string, registry: ToolRegistry, limit = 3): string[] {
  const lower = name.toLowerCase();
  const budget = Math.max(2, Math.floor(name.length / 3));
  const scored: { name: string; distance: number }[] = [];
  for (const candidate of registry.byName.keys()) {
    const distance = editDistance(name, candidate);
    const c = candidate.toLowerCase();
    const related = lower.length >= 3 && (c.includes(lower) || lower.includes(c));
    if (distance <= budget || related) scored.push({ name: candidate, distance });
  }
  scored.sort((x, y) => x.distance - y.distance || x.name.localeCompare(y.name));
  return scored.slice(0, limit).map((s) => s.name);
}
