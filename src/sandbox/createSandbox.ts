/**
 * The sandbox of one run, decided once at start: bubblewrap on Linux when it works here, else
 * none, with the reason (the user's `--no-sandbox` or `sandbox.enabled: false`, another platform,
 * no bwrap, no user namespaces). Never pretends: `status` says what commands really get.
 */
import { bwrapArgs, findOnPath, probeBwrap } from './bwrap.js';
import type { CommandSandbox, SandboxAccess, SandboxSettings, SandboxStatus, SpawnPlan } from './types.js';

export interface SandboxOptions {
  readonly platform: NodeJS.Platform | string;
  /** Workspace roots (real paths); the only places a sandboxed command may write. */
  readonly roots: readonly string[];
  readonly settings?: SandboxSettings;
  /** `--no-sandbox`. */
  readonly disabled?: boolean;
  /** Program names the settings exclude, found in a command by the caller's parser. */
  readonly commandNames?: (command: string) => readonly string[] | undefined;
  readonly env?: NodeJS.ProcessEnv;
}

/** What the run tells the user about its network setting, beside the status. */
export interface CreatedSandbox extends CommandSandbox {
  /** Messages worth one warning at start (e.g. domain filtering that cannot be done). */
  readonly notes: readonly string[];
}

/** A probe costs a process start (~50 ms); its answer does not change within one process. */
const probeCache = new Map<string, string | undefined>();

export function createSandbox(options: SandboxOptions): CreatedSandbox {
  const notes: string[] = [];
  const off = (reason: string): CreatedSandbox => unsandboxed({ kind: 'off', reason }, notes);
  if (options.disabled) return off('turned off with --no-sandbox');
  if (options.settings?.enabled === false) return off('turned off by sandbox.enabled: false in the settings');
  if (options.platform !== 'linux') return off(`no sandbox is implemented for ${options.platform}`);
  const path = options.env?.['PATH'] ?? process.env['PATH'] ?? '';
  const bwrap = findOnPath('bwrap', path);
  if (bwrap === undefined) return off('bubblewrap (bwrap) is not installed');
  const bash = findOnPath('bash', path) ?? '/bin/bash';
  if (!probeCache.has(bwrap)) probeCache.set(bwrap, probeBwrap(bwrap, bash));
  const failure = probeCache.get(bwrap);
  if (failure !== undefined) return off(failure);

  const domains = options.settings?.network?.allowedDomains ?? [];
  // Filtering by domain needs a proxy inside the network namespace; we run none, so the choice
  // is all or nothing: `*` shares the host network, anything narrower keeps it off.
  const network = domains.includes('*') ? 'host' : 'none';
  if (network === 'none' && domains.length > 0) {
    notes.push(`sandbox.network.allowedDomains (${domains.join(', ')}) cannot be enforced per domain (no filtering proxy); sandboxed commands get no network. Use ["*"] to allow all.`);
  }
  const excluded = new Set(options.settings?.excludedCommands ?? []);
  const status: SandboxStatus = { kind: 'bwrap', network };
  const config = { bwrap, bash, roots: options.roots, network } as const;
  return {
    status,
    notes,
    plan(command, cwd, access): SpawnPlan {
      if (excluded.size > 0 && (options.commandNames?.(command) ?? []).some((name) => excluded.has(name))) {
        return { file: 'bash', args: ['-c', command], sandboxed: false };
      }
      return { file: bwrap, args: bwrapArgs(config, command, cwd, access), sandboxed: true };
    },
  };
}

function unsandboxed(status: SandboxStatus, notes: string[]): CreatedSandbox {
  return { status, notes, plan: (command) => ({ file: 'bash', args: ['-c', command], sandboxed: false }) };
}

/** The access a shell command gets from the mode and the read-only classification. */
export function accessFor(mode: string, readOnly: boolean): SandboxAccess {
  return {
    workspace: readOnly || mode === 'plan' ? 'read' : 'write',
    protectedDirs: mode === 'bypassPermissions' && !readOnly ? 'write' : 'read',
  };
}

/** No sandbox at all: for library users who build tools without one. */
export const NO_SANDBOX: CommandSandbox = unsandboxed({ kind: 'off', reason: 'no sandbox was configured' }, []);
