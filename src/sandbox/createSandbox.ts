/**
 * The sandbox of one run, decided once at start: bubblewrap on Linux when it works here, else
 * none, with the reason (the user's `--no-sandbox` or `sandbox.enabled: false`, another platform,
 * no bwrap, no user namespaces). Never pretends: `status` says what commands really get.
 */
import { accessSync, constants } from 'node:fs';
import type { Readable } from 'node:stream';
import { bwrapArgs, INFO_FD, type ProtectedMounts } from './bwrap.js';
import { bwrapProbeResult, findOnPath, recheckRemembered } from './bwrapProbe.js';
import { startNetworkProxy, type NetworkProxy } from './networkProxy.js';
import { placeholders } from './placeholders.js';
import { NESTED_WALK_MAX_ENTRIES, nestedProtectedOf } from './nestedProtected.js';
import { protectedEntriesOf } from './protectedDirs.js';
import { unixSocketFilter } from './seccompFilter.js';
import type { CommandSandbox, SandboxAccess, SandboxSettings, SandboxStatus, SpawnFd, SpawnPlan } from './types.js';

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
  /** Entries per root the search for nested protected folders reads at most (nestedProtected.ts). */
  readonly nestedWalkMaxEntries?: number;
}

/** What the run tells the user about its network setting, beside the status. */
export interface CreatedSandbox extends CommandSandbox {
  /** Messages worth one warning at start. */
  readonly notes: readonly string[];
  /** Stops the network proxy, if one was started (a run's close; process exit does it too). */
  close(): void;
}

export function createSandbox(options: SandboxOptions): CreatedSandbox {
  const notes: string[] = [];
  const off = (reason: string): CreatedSandbox => unsandboxed({ kind: 'off', reason }, notes);
  if (options.disabled) return off('turned off with --no-sandbox');
  if (options.settings?.enabled === false) return off('turned off by sandbox.enabled: false in the settings');
  // macOS would need a Seatbelt profile run through sandbox-exec. @anthropic-ai/sandbox-runtime
  // (Claude Code's) has one, but it needs Node >= 22.12 where rxagent supports 20.18, and nothing
  // here could check that it holds: so darwin says plainly that it has none.
  if (options.platform === 'darwin') return off('macOS (darwin): rxagent has no Seatbelt (sandbox-exec) profile');
  if (options.platform !== 'linux') return off(`no sandbox is implemented for ${options.platform}`);
  const path = options.env?.['PATH'] ?? process.env['PATH'] ?? '';
  const bwrap = findOnPath('bwrap', path);
  if (bwrap === undefined) return off('bubblewrap (bwrap) is not installed');
  const bash = findOnPath('bash', path) ?? '/bin/bash';
  const failure = bwrapProbeResult(bwrap, bash);
  if (failure !== undefined) return off(failure);

  const domains = options.settings?.network?.allowedDomains ?? [];
  // Any list, `*` included, goes through rxagent's filtering proxy (networkProxy.ts), started at
  // the first sandboxed command, so a run without one opens nothing. The host network is never
  // shared: `*` means public addresses, not the host's loopback services.
  const network = domains.length > 0 ? 'proxy' : 'none';
  let proxy: NetworkProxy | undefined;
  const excluded = new Set(options.settings?.excludedCommands ?? []);
  const status: SandboxStatus = network === 'proxy' ? { kind: 'bwrap', network, allowedDomains: domains } : { kind: 'bwrap', network };
  const seccomp = unixSocketFilter(options.arch ?? process.arch);
  if (seccomp === undefined) notes.push(`Unix sockets on this machine stay reachable from sandboxed commands: no seccomp filter is written for ${options.arch ?? process.arch}`);
  const config = { bwrap, bash, roots: options.roots, network, node: process.execPath, ...(seccomp ? { seccomp } : {}) } as const;
  return {
    status,
    notes,
    close: () => proxy?.close(),
    plan(command, cwd, access): SpawnPlan {
      if (excluded.size > 0 && (options.commandNames?.(command) ?? []).some((name) => excluded.has(name))) {
        return { file: 'bash', args: ['-c', command], sandboxed: false };
      }
      const { mounts, note } = protectedMountsFor(options.roots, access, options.nestedWalkMaxEntries ?? NESTED_WALK_MAX_ENTRIES);
      const args = bwrapArgs(config, command, cwd, access, mounts);
      const holds = mounts.placeholders.length > 0;
      const bridge = network === 'proxy' ? (proxy ??= startNetworkProxy(domains)) : undefined;
      // fds 3-6 (bwrap.ts): the filter, the bridge's channel, bwrap's info, the lifeline.
      const fds: SpawnFd[] = [
        seccomp ? { kind: 'input', bytes: seccomp } : { kind: 'none' },
        bridge ? { kind: 'ipc' } : { kind: 'none' },
        holds ? { kind: 'output' } : { kind: 'none' },
        { kind: 'lifeline' },
      ];
      return {
        file: bwrap,
        args,
        sandboxed: true,
        ...(note === undefined ? {} : { note }),
        fds,
        started(child) {
          const stopBridge = child && bridge ? bridge.adoptBridge(child) : undefined;
          // Held from the spawn on (same tick: no other call's release can come between).
          const init = child && holds ? readInitPid((child.stdio as readonly unknown[])[INFO_FD] as Readable | null | undefined) : undefined;
          const hold = holds ? placeholders.take(mounts.placeholders, () => init?.pid) : undefined;
          return (end) => {
            stopBridge?.();
            hold?.release({ exitedNormally: !end.spawned || end.exitCode !== null });
            // bwrap fails a command it cannot confine (exit 1, its reason on stderr): a verdict
            // remembered from an earlier start is then checked, and dropped if it no longer holds.
            if (!end.spawned || end.exitCode !== 0) recheckRemembered(bwrap);
          };
        },
      };
    },
  };
}

/** Roots whose nested walk hit its bound, told once on stderr per process. */
const warnedRoots = new Set<string>();

/**
 * The protected folders' mounts of one call (none when the mode may write there), and a note
 * when a root was too large to look through for nested ones. Nested ones are only looked for
 * when the roots are writable: a read-only root covers them already.
 */
function protectedMountsFor(roots: readonly string[], access: SandboxAccess, maxEntries: number): { mounts: ProtectedMounts; note?: string } {
  if (access.protectedDirs === 'write') return { mounts: { bindReadOnly: [], placeholders: [] } };
  const entries = roots.map(protectedEntriesOf);
  const existing = entries.flatMap((entry) => entry.existing);
  if (access.workspace === 'read') return { mounts: { bindReadOnly: existing, placeholders: [] } };
  const nested = roots.map((root) => nestedProtectedOf(root, maxEntries));
  const cut = roots.filter((_, i) => nested[i]!.truncated);
  // A root inside another (an --add-dir below cwd) is met twice: once is enough.
  const all = [...new Set([...existing, ...nested.flatMap((n) => n.found)])];
  // A root we cannot write (an --add-dir on a read-only mount) needs none, and bwrap could not make one there.
  const missing = entries.flatMap((entry, i) => (writable(roots[i]!) ? entry.missing : []));
  const mounts = placeholders.plan(all, missing);
  if (cut.length === 0) return { mounts };
  const note = `Sandbox: ${cut.join(', ')} has more than ${maxEntries} entries; .git, .claude and .rxagent folders past that many were not found and are not protected from this command.`;
  for (const root of cut) {
    if (warnedRoots.has(root)) continue;
    warnedRoots.add(root);
    process.stderr.write(`rxagent: ${note}\n`);
  }
  return { mounts, note };
}

function writable(dir: string): boolean {
  try {
    accessSync(dir, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

/** bwrap's `--info-fd` JSON: `child-pid` is the host pid of the sandbox's init. */
function readInitPid(info: Readable | null | undefined): { pid?: number } {
  const found: { pid?: number } = {};
  if (info == null) return found;
  let text = '';
  info.setEncoding('utf8');
  info.on('error', () => {});
  info.on('data', (chunk: string) => {
    if (found.pid !== undefined || text.length > 4096) return;
    text += chunk;
    const m = /"child-pid"\s*:\s*(\d+)/.exec(text);
    if (m) found.pid = Number(m[1]);
  });
  return found;
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
