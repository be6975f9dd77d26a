/**
 * The Linux sandbox: bubblewrap (`bwrap`), run directly.
 *
 * Why bwrap and not `@anthropic-ai/sandbox-runtime`: the runtime's current releases declare
 * Node >= 22.12 (npm picks an older one for Node 20), and on Linux it needs `socat` and
 * `ripgrep` besides bwrap for its network proxy and its scan for dangerous files, and brings
 * zod 3 beside our zod 4. What we need from it is the bwrap command line, which is short and
 * auditable here. Its domain-filtering proxy has an equivalent of our own (networkProxy.ts).
 *
 * Each command gets: the host file system read-only; the workspace roots bound read-write (or
 * read-only, see `SandboxAccess`), with `.git`/`.rxagent`/`.claude` bound read-only over them;
 * a fresh tmpfs on /tmp (private, gone with the call); a fresh /proc of its own PID namespace, so
 * no host process (rxagent included) can be seen or its environ read; no network namespace
 * shared with the host unless allowed (`*`), or only rxagent's filtering proxy (allowedDomains); `--die-with-parent` and the PID namespace's init, so every
 * process it starts (setsid daemons included) dies when the call ends or is killed; and a
 * seccomp filter that refuses new Unix sockets (seccompFilter.ts), since a socket file on the
 * read-only host can still be connected to.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { BRIDGE_LAUNCHER, proxyBwrapArgs } from './networkProxy.js';
import { protectedEntriesOf } from './protectedDirs.js';
import type { SandboxAccess } from './types.js';

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

export interface BwrapCommand {
  readonly bwrap: string;
  readonly bash: string;
  readonly roots: readonly string[];
  readonly network: 'none' | 'host' | 'proxy';
  /** With `network: 'proxy'`: the proxy's socket and the node that runs the bridge (networkProxy.ts). */
  readonly proxy?: () => { readonly socketDir: string; readonly socketPath: string; readonly node: string };
  /** The Unix socket filter (seccompFilter.ts), read by bwrap from fd 3; undefined: none. */
  readonly seccomp?: Uint8Array;
}

/** The bwrap argv (without the bwrap path itself) that runs `bash -c command` confined. */
export function bwrapArgs(config: BwrapCommand, command: string, cwd: string, access: SandboxAccess): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  // Roots after the tmpfs: a workspace under /tmp must stay the real one, not the empty tmpfs.
  for (const root of config.roots) args.push(access.workspace === 'write' ? '--bind' : '--ro-bind', root, root);
  if (access.protectedDirs === 'read') {
    for (const root of config.roots) for (const entry of protectedEntriesOf(root)) args.push('--ro-bind', entry, entry);
  }
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
  if (config.network !== 'host') args.push('--unshare-net');
  // --new-session: no TIOCSTI keystrokes into the user's terminal from inside.
  args.push('--die-with-parent', '--new-session', '--setenv', 'TMPDIR', '/tmp', '--chdir', cwd);
  // Not with the proxy: its bridge inside must connect to rxagent's Unix socket (README says so).
  if (config.seccomp !== undefined && config.network !== 'proxy') args.push('--seccomp', '3');
  const proxy = config.network === 'proxy' ? config.proxy?.() : undefined;
  // Through the proxy: the bridge starts first, then the command itself runs as `$0` of it.
  if (proxy) args.push(...proxyBwrapArgs(proxy, proxy.node), '--', config.bash, '-c', BRIDGE_LAUNCHER, command);
  else args.push('--', config.bash, '-c', command);
  return args;
}

/** Why bwrap cannot confine a command here, or undefined when a probe run worked. */
export function probeBwrap(bwrap: string, bash: string): string | undefined {
  const result = spawnSync(
    bwrap,
    ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp', '--unshare-pid', '--unshare-net', '--die-with-parent', '--', bash, '-c', 'exit 0'],
    { stdio: ['ignore', 'ignore', 'pipe'], timeout: 10_000, encoding: 'utf8' },
  );
  if (result.error) return `bwrap could not start: ${result.error.message}`;
  if (result.status !== 0) {
    const why = (result.stderr ?? '').trim().split('\n')[0] ?? '';
    return `bwrap cannot create namespaces here${why ? ` (${why})` : ''}`;
  }
  return undefined;
}
