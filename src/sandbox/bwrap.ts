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
 * read-only, see `SandboxAccess`), with `.git`/`.rxagent`/`.claude` read-only over them, those
 * that do not exist yet included (placeholders.ts), nested ones found when the call starts too
 * (nestedProtected.ts); a fresh tmpfs on /tmp (private, gone with the
 * call); a fresh /proc of its own PID namespace, so no host process (rxagent included) can be seen
 * or its environ read; a network namespace of its own, whose only way out is rxagent's filtering
 * proxy when `allowedDomains` lists anything; `--die-with-parent`, the lifeline check and the PID
 * namespace's init (the launcher below), so every process it starts (setsid daemons included)
 * dies when the call ends or is killed, or rxagent dies, however early; and a
 * seccomp filter that refuses new Unix sockets (seccompFilter.ts), since a socket file on the
 * read-only host can still be connected to.
 */
import { BRIDGE_CHANNEL_FD, BRIDGE_SETUP, proxyBwrapArgs } from './networkProxy.js';
import type { SandboxAccess } from './types.js';

export { findOnPath, probeBwrap } from './bwrapProbe.js';

export interface BwrapCommand {
  readonly bwrap: string;
  readonly bash: string;
  readonly roots: readonly string[];
  /** `proxy`: rxagent's filtering proxy is the only way out (networkProxy.ts). */
  readonly network: 'none' | 'proxy';
  /** The node binary that runs the proxy bridge inside. */
  readonly node: string;
  /** The Unix socket filter (seccompFilter.ts), read by bwrap from fd 3; undefined: none. */
  readonly seccomp?: Uint8Array;
}

/** What one call mounts over its roots' protected folders (placeholders.ts). */
export interface ProtectedMounts {
  /** Existing protected entries, bound read-only over themselves. */
  readonly bindReadOnly: readonly string[];
  /** Protected names that do not exist yet (or are our empty placeholders): an empty read-only tmpfs. */
  readonly placeholders: readonly string[];
}

/** The fds the bwrap command line refers to: 3 the seccomp filter, 4 the bridge's channel, 5 bwrap's `--info-fd`, 6 the lifeline. */
export const SECCOMP_FD = 3;
export const INFO_FD = 5;
export const LIFELINE_FD = 6;

/**
 * Closes `--die-with-parent`'s start race. bwrap arms PR_SET_PDEATHSIG in each of its processes
 * as it runs, and the kernel never signals a death that came before the arming: an rxagent
 * SIGKILLed in the moment a call starts left that sandbox running for good.
 *
 * With `--as-pid-1` the chain is two links, rxagent → bwrap (armed before it lets its child run)
 * → this launcher, pid 1 of the sandbox (armed before bwrap execs it). So the first thing the
 * launcher does, every arming behind it, is look at fd 6, a pipe only rxagent holds and never
 * writes: readable means end-of-file, rxagent is gone (or gave the call up, processGroup.ts
 * closes its end before it kills), and nothing runs. Not readable means rxagent was alive after
 * both armings, with both parents still the original ones, so any later death reaches the whole
 * sandbox. fd 6 is closed at once: nothing inside holds it or waits on it, so it can never keep
 * rxagent waiting for the call to close (the fault of the reverted watchdog design, 1fa348b).
 * A missing fd 6 fails closed too.
 */
const LIFELINE_CHECK = `{ : <&${LIFELINE_FD} && ! read -t 0 -u ${LIFELINE_FD}; } 2>/dev/null || exit 125; exec ${LIFELINE_FD}<&-; `;

/**
 * Every descriptor above stderr is closed before anything else runs, the proxy bridge's channel
 * excepted (BRIDGE_SETUP closes it after the bridge). libuv leaves open in each child whatever
 * rxagent inherited without close-on-exec, and bwrap passes it on: a host directory leaked into
 * rxagent by its parent (an IDE, an SDK host) was a way out, since `/proc/self/fd/N` of it is
 * the host's writable mount, not the sandbox's read-only view.
 */
function closeInherited(keep: readonly number[]): string {
  return `for f in /proc/self/fd/*; do f=\${f##*/}; case $f in *[!0-9]*|${[0, 1, 2, ...keep].join('|')}) ;; *) eval "exec $f>&-" ;; esac; done; `;
}

/**
 * The command itself runs as a child of the launcher, not exec'd over it: pid 1 reaps the
 * sandbox's orphans (as bwrap's own init would) and, when the command ends, exits with its
 * status, which ends every process left in the PID namespace. `$0` is the command, so its text
 * is never spliced into this script; `exit $?` keeps bash from exec'ing the last command. The
 * launcher's own stderr is /dev/null (the command gets the real one), so a command killed by a
 * signal is not reported a second time, as bash's "line 1: 2 Killed" job notice.
 */
const RUN_COMMAND = 'exec 3>&2 2>/dev/null; "$BASH" -c "$0" 2>&3 3>&-; exit $?';

/** The launcher's script, given the command as `$0`. */
export function launcherScript(network: BwrapCommand['network']): string {
  if (network === 'proxy') return LIFELINE_CHECK + closeInherited([BRIDGE_CHANNEL_FD]) + BRIDGE_SETUP + RUN_COMMAND;
  return LIFELINE_CHECK + closeInherited([]) + RUN_COMMAND;
}

/** The bwrap argv (without the bwrap path itself) that runs `bash -c command` confined. */
export function bwrapArgs(config: BwrapCommand, command: string, cwd: string, access: SandboxAccess, protectedMounts: ProtectedMounts): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  // Roots after the tmpfs: a workspace under /tmp must stay the real one, not the empty tmpfs.
  for (const root of config.roots) args.push(access.workspace === 'write' ? '--bind' : '--ro-bind', root, root);
  for (const entry of protectedMounts.bindReadOnly) args.push('--ro-bind', entry, entry);
  // bwrap makes each mount point (an empty directory on the host) before mounting over it.
  for (const path of protectedMounts.placeholders) args.push('--tmpfs', path, '--remount-ro', path);
  if (protectedMounts.placeholders.length > 0) args.push('--info-fd', String(INFO_FD));
  args.push('--unshare-pid', '--as-pid-1', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try', '--unshare-net');
  // --new-session: no TIOCSTI keystrokes into the user's terminal from inside.
  args.push('--die-with-parent', '--new-session', '--setenv', 'TMPDIR', '/tmp', '--chdir', cwd);
  if (config.seccomp !== undefined) args.push('--seccomp', String(SECCOMP_FD));
  if (config.network === 'proxy') args.push(...proxyBwrapArgs(config.node));
  args.push('--', config.bash, '-c', launcherScript(config.network), command);
  return args;
}
