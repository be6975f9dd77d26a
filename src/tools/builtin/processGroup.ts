/**
 * Runs `bash -c <command>` as the leader of its own process group and ends the whole group on
 * timeout or unsubscribe: SIGTERM first, SIGKILL after a grace period. Shared by the Bash tool
 * and command hooks. Cold: nothing starts before subscribe; unsubscribing kills the group.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { Observable, timer } from 'rxjs';
import type { SpawnPlan } from '../../sandbox/types.js';

/** Options of {@link runProcessGroup}. */
export interface ProcessGroupOptions {
  readonly command: string;
  readonly cwd: string;
  /** Written to stdin, which is then closed; stdin is empty when absent. */
  readonly stdin?: string;
  readonly timeoutMs: number;
  /** Wait between SIGTERM and SIGKILL. Default 2000 ms. */
  readonly killGraceMs?: number;
  /** Characters kept per stream (combined: for the one stream). Default 30 000. */
  readonly maxOutputChars?: number;
  /** Interleave stdout and stderr into `output` (Bash) or keep them apart (hooks). */
  readonly combineOutput: boolean;
  /** Default: this process's environment without our own credentials (`childEnvironment()`). */
  readonly env?: NodeJS.ProcessEnv;
  /** What to spawn for `bash -c command` (the sandbox's plan); default plain `bash -c`. */
  readonly spawnPlan?: SpawnPlan;
}

/**
 * Variables holding the credentials rxagent itself uses. Claude Code hands its whole environment
 * to commands; we keep everything else (PATH, proxies, tokens the user's tools need) but not the
 * API key: a model-run `env`, `printenv` or `cat /proc/self/environ` must not put it in a tool
 * result (and so in the transcript and the next request). A command that really needs it can be
 * given it explicitly through `env`.
 */
export const SECRET_ENV_VARS: readonly string[] = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN', 'CLAUDE_CODE_OAUTH_TOKEN'];

export function childEnvironment(base: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const env = { ...base };
  for (const name of SECRET_ENV_VARS) delete env[name];
  return env;
}

/** How a process group ended: exit code, output, and whether it timed out. */
export interface ProcessGroupResult {
  /** Exit code, or null when ended by a signal. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** stdout (and stderr, when combined). */
  readonly output: string;
  readonly stderr: string;
  /** Characters dropped from output / stderr beyond the cap. */
  readonly outputDropped: number;
  readonly stderrDropped: number;
  readonly timedOut: boolean;
  readonly pid: number | undefined;
}

export const DEFAULT_KILL_GRACE_MS = 2000;

/**
 * Leaders of the process groups running now, so an exiting rxagent can end every one of them,
 * each with the call that first cuts its sandbox's lifeline (bwrap.ts), if it has one.
 */
const liveGroups = new Map<number, () => void>();
const noLifeline = () => {};

/**
 * SIGKILLs every process group still running, synchronously: for the exit paths (signals, EPIPE,
 * `process.exit`), where no timer will ever fire again. A sandboxed group takes its whole PID
 * namespace with it. Returns how many groups were signalled.
 */
export function killAllProcessGroups(): number {
  let signalled = 0;
  for (const [pid, cutLifeline] of liveGroups) {
    cutLifeline();
    try {
      process.kill(-pid, 'SIGKILL');
      signalled++;
    } catch {
      // already gone
    }
  }
  liveGroups.clear();
  return signalled;
}

/**
 * Registers a process group started elsewhere (an MCP stdio server) so the exit paths end it
 * too; returns the call that unregisters it once the group is gone.
 */
export function trackProcessGroup(pid: number): () => void {
  liveGroups.set(pid, noLifeline);
  return () => liveGroups.delete(pid);
}

/** How many process groups are running now (for tests and diagnostics). */
export function liveProcessGroupCount(): number {
  return liveGroups.size;
}

/** Runs `bash -c command` as its own process group: cold; unsubscribing or the timeout ends the whole group. */
export function runProcessGroup(options: ProcessGroupOptions): Observable<ProcessGroupResult> {
  return new Observable<ProcessGroupResult>((subscriber) => {
    const cap = options.maxOutputChars ?? 30_000;
    const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
    const out = createCappedText(cap);
    const err = createCappedText(cap);
    let exited = false;
    let timedOut = false;

    const plan: SpawnPlan = options.spawnPlan ?? { file: 'bash', args: ['-c', options.command], sandboxed: false };
    const extraFds = plan.fds ?? [];
    let child: ChildProcessByStdio<Writable, Readable, Readable>;
    try {
      child = spawn(plan.file, [...plan.args], {
        cwd: options.cwd,
        detached: true, // own process group, so the whole tree can be signalled at once
        // fds 3… only as the plan asks (bwrap reads its seccomp filter there, the proxy bridge talks IPC).
        stdio: ['pipe', 'pipe', 'pipe', ...extraFds.map((fd) => (fd.kind === 'ipc' ? 'ipc' : fd.kind === 'none' ? 'ignore' : 'pipe'))],
        env: options.env ?? childEnvironment(),
      }) as ChildProcessByStdio<Writable, Readable, Readable>; // fds 0-2 are always pipes
    } catch (error) {
      plan.started?.(undefined)({ spawned: false, exitCode: null, signal: null });
      throw error;
    }
    let cutLifeline = noLifeline;
    extraFds.forEach((fd, i) => {
      if (fd.kind === 'lifeline') {
        // Never written. Read, so that its end (the launcher closes it at once) lets 'close' come;
        // destroyed before the group is killed, so a launcher not yet past its check runs nothing.
        const line = child.stdio[3 + i] as Readable;
        line.on('error', () => {});
        line.resume();
        cutLifeline = () => line.destroy();
        return;
      }
      if (fd.kind !== 'input') return;
      const pipe = child.stdio[3 + i] as Writable;
      pipe.on('error', () => {}); // bwrap may fail before reading it: its exit code says why
      pipe.end(fd.bytes);
    });
    // The plan's cleanup runs when the process is gone, not at unsubscribe: a killed sandbox may
    // still be tearing down then.
    const ended = plan.started?.(child);
    if (ended) {
      let done = false;
      const end = (spawned: boolean) => {
        if (done) return;
        done = true;
        ended({ spawned, exitCode: child.exitCode, signal: child.signalCode });
      };
      child.once('exit', () => end(true));
      child.once('error', () => {
        if (child.pid === undefined) end(false); // never started; otherwise 'exit' follows
      });
    }
    const pid = child.pid;
    if (pid !== undefined) liveGroups.set(pid, cutLifeline);

    const signalGroup = (signal: NodeJS.Signals) => {
      if (pid === undefined) return;
      try {
        process.kill(-pid, signal);
      } catch {
        // ESRCH: the group is already gone
      }
    };
    /**
     * SIGTERM now and SIGKILL after the grace period, even if we are unsubscribed by then: the
     * SIGKILL timer is deliberately not tied to this subscription, so nothing outlives it.
     */
    const endGroup = () => {
      cutLifeline();
      signalGroup('SIGTERM');
      timer(grace).subscribe(() => {
        signalGroup('SIGKILL');
        if (pid !== undefined) liveGroups.delete(pid);
      });
    };

    child.stdout.setEncoding('utf8').on('data', (chunk: string) => out.push(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (options.combineOutput ? out : err).push(chunk));
    child.stdin.on('error', () => {}); // the command may exit without reading its stdin (EPIPE)
    child.stdin.end(options.stdin ?? '');

    child.on('error', (error) => {
      exited = true;
      subscriber.error(error);
    });
    // Unsandboxed, a `setsid` child can leave the group and keep our pipes open: 'close' would
    // then never come. Once bash itself has exited, its pipes get the grace period to drain,
    // then the group is killed and the pipes are let go, so the call ends either way.
    child.on('exit', () => {
      exited = true;
      pipeGrace = timer(grace).subscribe(() => {
        signalGroup('SIGKILL');
        child.stdout.destroy();
        child.stderr.destroy();
        finish(child.exitCode, child.signalCode);
      });
    });
    let pipeGrace: { unsubscribe(): void } | undefined;
    let finished = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null) => {
      if (finished) return;
      finished = true;
      exited = true;
      pipeGrace?.unsubscribe();
      timeoutSub.unsubscribe();
      if (timedOut) signalGroup('SIGKILL'); // stragglers that ignored SIGTERM but closed their pipes
      subscriber.next({
        exitCode: code,
        signal,
        output: out.text(),
        stderr: err.text(),
        outputDropped: out.dropped(),
        stderrDropped: err.dropped(),
        timedOut,
        pid,
      });
      subscriber.complete();
    };
    // 'close' (not 'exit') waits until every holder of the pipes is gone, so output is complete.
    child.on('close', (code, signal) => finish(code, signal));

    const timeoutSub = timer(options.timeoutMs).subscribe(() => {
      timedOut = true;
      endGroup();
    });

    return () => {
      timeoutSub.unsubscribe();
      pipeGrace?.unsubscribe();
      if (!exited) return endGroup();
      signalGroup('SIGKILL'); // background children left by a finished command
      if (pid !== undefined) liveGroups.delete(pid);
    };
  });
}

/** Keeps the first `cap` characters and counts the rest. */
function createCappedText(cap: number) {
  const parts: string[] = [];
  let kept = 0;
  let dropped = 0;
  return {
    push(chunk: string) {
      const room = cap - kept;
      if (room <= 0) {
        dropped += chunk.length;
        return;
      }
      const piece = chunk.length <= room ? chunk : chunk.slice(0, room);
      parts.push(piece);
      kept += piece.length;
      dropped += chunk.length - piece.length;
    },
    text: () => parts.join(''),
    dropped: () => dropped,
  };
}
