/**
 * Whether bwrap can confine a command on this machine: one probe run per bwrap per process.
 * Apart from bwrap.ts (which loads the network proxy's modules) so the command can start the
 * probe before it loads anything else (`probeBwrapAhead`): the probe's process then runs while
 * the run's modules load, instead of blocking the run's start (issue 20 §3).
 */
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { forgetVerdict, rememberedVerdict, rememberVerdict, verdictKey } from './bwrapVerdictCache.js';

/** The first executable named `name` on PATH. */
export function findOnPath(name: string, path = process.env['PATH'] ?? ''): string | undefined {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

function probeArgs(bash: string): string[] {
  return ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--unshare-pid', '--unshare-net', '--die-with-parent', '--', bash, '-c', 'exit 0'];
}

function verdict(error: Error | undefined, status: number | null, stderr: string): string | undefined {
  if (error) return `bwrap could not start: ${error.message}`;
  if (status !== 0) {
    const why = stderr.trim().split('\n')[0] ?? '';
    return `bwrap cannot create namespaces here${why ? ` (${why})` : ''}`;
  }
  return undefined;
}

/** Why bwrap cannot confine a command here, or undefined when a probe run worked. */
export function probeBwrap(bwrap: string, bash: string): string | undefined {
  const result = spawnSync(bwrap, probeArgs(bash), { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000, encoding: 'utf8' });
  return verdict(result.error, result.status, result.stderr ?? '');
}

/** A probe costs a process start (~10–50 ms); its answer does not change within one process. */
const probeCache = new Map<string, string | undefined>();
const pending = new Map<string, Promise<void>>();
/** Positive verdicts this process took from disk instead of a probe run (bwrapVerdictCache.ts), by bwrap. */
const remembered = new Map<string, { readonly bash: string; readonly cacheDir: string }>();

/** The probe's answer for `bwrap`: the cached one, else a probe run now (synchronously). */
export function bwrapProbeResult(bwrap: string, bash: string): string | undefined {
  if (!probeCache.has(bwrap)) probeCache.set(bwrap, probeBwrap(bwrap, bash));
  return probeCache.get(bwrap);
}

/**
 * Starts the same probe asynchronously for the bwrap and bash on `path`, when there is one and
 * no answer yet; `settleBwrapProbes` waits for it. Only an earlier start: a sandbox that turns out
 * off (settings, another PATH) never reads its answer.
 *
 * With `cacheDir` (the command's), a positive verdict remembered there for this exact machine
 * state is taken instead of a probe run, and a positive probe is remembered for the next start
 * (bwrapVerdictCache.ts says why only a positive one, and why that is safe).
 */
export function probeBwrapAhead(path = process.env['PATH'] ?? '', cacheDir?: string): void {
  if (process.platform !== 'linux') return;
  const bwrap = findOnPath('bwrap', path);
  if (bwrap === undefined || probeCache.has(bwrap) || pending.has(bwrap)) return;
  const bash = findOnPath('bash', path) ?? '/bin/bash';
  // Made before the probe runs, so what is kept describes the machine the probe saw (or an older state).
  const key = cacheDir === undefined ? undefined : verdictKey(bwrap, bash);
  if (key !== undefined && cacheDir !== undefined && rememberedVerdict(cacheDir, key)) {
    probeCache.set(bwrap, undefined);
    remembered.set(bwrap, { bash, cacheDir });
    return;
  }
  const done = new Promise<void>((resolve) => {
    let stderr = '';
    let settled = false;
    const settle = (answer: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!probeCache.has(bwrap)) probeCache.set(bwrap, answer);
      if (answer === undefined && key !== undefined && cacheDir !== undefined) rememberVerdict(cacheDir, key);
      pending.delete(bwrap);
      resolve();
    };
    const child = spawn(bwrap, probeArgs(bash), { stdio: ['ignore', 'ignore', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGTERM'), 10_000);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (stderr += chunk));
    child.on('error', (error) => settle(verdict(error, null, stderr)));
    child.on('close', (status) => settle(verdict(undefined, status, stderr)));
  });
  pending.set(bwrap, done);
}

/**
 * A sandboxed command of this process failed (or bwrap could not be started). When the verdict
 * that bwrap works came from disk and not from a probe of this process, the probe runs now, once:
 * if bwrap no longer works here, the remembered verdict is dropped, so the next start probes and
 * runs with the sandbox off and its warning, as a start without the cache would. This run stays
 * as it began: its commands keep going through bwrap, which fails them, never runs them unconfined.
 */
export function recheckRemembered(bwrap: string): void {
  const entry = remembered.get(bwrap);
  if (entry === undefined) return;
  remembered.delete(bwrap);
  if (probeBwrap(bwrap, entry.bash) !== undefined) forgetVerdict(entry.cacheDir);
}

/** Waits for the probes `probeBwrapAhead` started (none: resolves at once). */
export async function settleBwrapProbes(): Promise<void> {
  await Promise.all([...pending.values()]);
}
