/** What the OS sandbox around shell commands can promise, and how one command is to be confined. */
import type { ChildProcess } from 'node:child_process';

/** Whether a sandboxed command may write the workspace roots, and the protected folders in them. */
export interface SandboxAccess {
  /** `read`: the roots are mounted read-only too (read-only-classified commands, plan mode). */
  readonly workspace: 'write' | 'read';
  /** `.git`, `.rxagent`, `.claude` in each root, nested ones included: read-only unless the mode allows edits there. */
  readonly protectedDirs: 'write' | 'read';
}

/** The sandbox a run has, as told once at start (stderr) and in the init line. */
export type SandboxStatus =
  | {
      readonly kind: 'bwrap';
      /** `none`: a network namespace of its own with nothing but loopback. */
      readonly network: 'none';
    }
  | {
      readonly kind: 'bwrap';
      /** Only these domains, through rxagent's proxy (`sandbox.network.allowedDomains`). */
      readonly network: 'proxy';
      readonly allowedDomains: readonly string[];
    }
  | {
      readonly kind: 'off';
      /** Why there is none: the user turned it off, or it cannot be had here. */
      readonly reason: string;
    };

/**
 * A descriptor the child gets beyond stdin/stdout/stderr, from fd 3 up: bytes it reads (bwrap's
 * `--seccomp 3`), a Node IPC channel (the proxy bridge hands its listening socket over it), a
 * pipe it writes (bwrap's `--info-fd`), the sandbox's lifeline (bwrap.ts), or nothing.
 */
export type SpawnFd =
  | { readonly kind: 'input'; readonly bytes: Uint8Array }
  | { readonly kind: 'ipc' }
  | { readonly kind: 'output' }
  /** A pipe rxagent holds and never writes; it closes its end before it ends the call (bwrap.ts). */
  | { readonly kind: 'lifeline' }
  | { readonly kind: 'none' };

/** How the spawned process ended, for {@link SpawnPlan.started}'s cleanup. */
export interface SpawnEnd {
  /** False when no process was started (the spawn threw, or the program could not be run). */
  readonly spawned: boolean;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
}

/** The argv that runs `bash -c command` confined (or unconfined when the sandbox is off). */
export interface SpawnPlan {
  readonly file: string;
  readonly args: readonly string[];
  /** False when this command runs without the sandbox (sandbox off, or an excluded command). */
  readonly sandboxed: boolean;
  /** Something the command's result must tell (a protection that could not be fully applied). */
  readonly note?: string;
  /** The child's fds 3, 4, … in order. */
  readonly fds?: readonly SpawnFd[];
  /**
   * Called once right after the spawn with the child (its extra fds are `child.stdio[3…]`), or
   * with undefined when the spawn threw; the call it returns runs once, when the process has
   * exited or could not start (whatever became of the subscription).
   */
  readonly started?: (child: ChildProcess | undefined) => (end: SpawnEnd) => void;
}

/** Wraps shell commands of one run: built once at start from settings and the platform. */
export interface CommandSandbox {
  readonly status: SandboxStatus;
  /** How to spawn `bash -c command` in `cwd` with the given access. */
  plan(command: string, cwd: string, access: SandboxAccess): SpawnPlan;
}

/** The sandbox settings keys rxagent reads (Claude Code's names). */
export interface SandboxSettings {
  readonly enabled?: boolean;
  readonly network?: { readonly allowedDomains?: readonly string[] };
  /** Commands (by program name) that run outside the sandbox; they then get no auto-approval. */
  readonly excludedCommands?: readonly string[];
}

/** A one-line description for stderr and the init line. */
export function describeSandbox(status: SandboxStatus): string {
  if (status.kind === 'off') return `no sandbox (${status.reason}); shell commands are limited by the permission rules only`;
  const files = 'bubblewrap sandbox: file system read-only outside the workspace';
  switch (status.network) {
    case 'none':
      return `${files}, no network`;
    case 'proxy':
      return `${files}, network only to ${status.allowedDomains.join(', ')} (through rxagent's proxy, for programs that use HTTPS_PROXY; loopback and private addresses only when listed exactly)`;
  }
}
