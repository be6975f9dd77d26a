/**
 * The sandbox of one run, decided once at start: bubblewrap on Linux when it works here, else
 * none, with the reason (the user's `--no-sandbox` or `sandbox.enabled: false`, another platform,
 * no bwrap, no user namespaces). Never pretends: `status` says what commands really get.
 */
import { bwrapArgs, findOnPath, probeBwrap } from './bwrap.js';
import { startNetworkProxy, type NetworkProxy } from './networkProxy.js';
import { unixSocketFilter } from './seccompFilter.js';
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
  /** The CPU architecture the seccomp filter is written for; default `process.arch`. */
  readonly arch?: string;
}

/** What the run tells the user about its network setting, beside the status. */
export interface CreatedSandbox extends CommandSandbox {
  /** Messages worth one warning at start. */
  readonly notes: readonly string[];
  /** Stops the network proxy, if one was started (a run's close; process exit does it too). */
  close(): void;
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
  // `*` shares the host network; a narrower list gets rxagent's filtering proxy (networkProxy.ts),
  // started at the first sandboxed command, so a run without one opens no socket.
  const network = domains.includes('*') ? 'host' : domains.length > 0 ? 'proxy' : 'none';
  let proxy: NetworkProxy | undefined;
  const proxyFor = () => {
    proxy ??= startNetworkProxy(domains);
    return { socketDir: proxy.socketDir, socketPath: proxy.socketPath, node: process.execPath };
  };
  const excluded = new Set(options.settings?.excludedCommands ?? []);
  const status: SandboxStatus = network === 'proxy' ? { kind: 'bwrap', network, allowedDomains: domains } : { kind: 'bwrap', network };
  const seccomp = unixSocketFilter(options.arch ?? process.arch);
  if (seccomp === undefined) notes.push(`Unix sockets on this machine stay reachable from sandboxed commands: no seccomp filter is written for ${options.arch ?? process.arch}`);
  const config = { bwrap, bash, roots: options.roots, network, proxy: proxyFor, ...(seccomp ? { seccomp } : {}) } as const;
  return {
    status,
    notes,
    close: () => proxy?.close(),
    plan(command, cwd, access): SpawnPlan {
      if (excluded.size > 0 && (options.commandNames?.(command) ?? []).some((name) => excluded.has(name))) {
        return { file: 'bash', args: ['-c', command], sandboxed: false };
      }
      const args = bwrapArgs(config, command, cwd, access);
      return { file: bwrap, args, sandboxed: true, ...(args.includes('--seccomp') && seccomp ? { fd3: seccomp } : {}) };
    },
  };
}

function unsandboxed(status: SandboxStatus, notes: string[]): CreatedSandbox {
  return { status, notes, close: () => undefined, plan: (command) => ({ file: 'bash', args: ['-c', command], sandboxed: false }) };
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
