import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isObservable, lastValueFrom } from 'rxjs';
import type { ToolCallContext, ToolSpec } from '../../src/tools/types.js';

export async function makeTempDir(prefix = 'rxagent-builtin-'): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

export function makeContext(signal: AbortSignal = new AbortController().signal): ToolCallContext {
  return { signal, toolUseId: 'toolu_test', shared: {}, progress: () => {} };
}

/** Parses the input with the tool's schema (as the pipeline does), calls it, and unwraps the output. */
export async function runTool<I, O>(spec: ToolSpec<I, O>, input: unknown, signal?: AbortSignal): Promise<O> {
  const parsed = spec.inputSchema.parse(input);
  const returned = spec.call(parsed, makeContext(signal)) as unknown;
  if (isObservable(returned)) {
    const last = (await lastValueFrom(returned)) as { type: 'outcome'; output: O };
    return last.output;
  }
  const value = (await returned) as O | { type: 'outcome'; output: O };
  // A tool that also gives a structured result returns an outcome: the output is its text.
  return typeof value === 'object' && value !== null && (value as { type?: unknown }).type === 'outcome' ? (value as { output: O }).output : (value as O);
}

/** Whether a process still runs. Zombies count as dead: the sandbox's pid 1 does not reap orphans. */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}
