/**
 * The stdio client transport, with the server as the leader of its own process group. The SDK's
 * `StdioClientTransport` signals only its direct child: a server started through a wrapper
 * (`npx`, `sh -c`, `uvx`) or one that starts helpers of its own (a browser, a language server)
 * leaves those behind when it is stopped or dies. Here closing ends the whole group (stdin closed
 * first so a server can stop cleanly, then SIGTERM, then SIGKILL), and the group is registered
 * with the process cleanup so an exiting rxagent takes it too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { trackProcessGroup } from '../tools/builtin/processGroup.js';

export interface StdioServerParams {
  readonly command: string;
  readonly args?: readonly string[];
  /** Added to the SDK's short list of safe variables (PATH, HOME, ...). */
  readonly env?: Readonly<Record<string, string>>;
  readonly cwd?: string;
  /** Wait after closing stdin, and again after SIGTERM. Default 2000 ms (as the SDK). */
  readonly graceMs?: number;
}

const DEFAULT_GRACE_MS = 2000;

export class StdioGroupTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  /** The server's stderr, readable before `start` so nothing it writes early is lost. */
  readonly stderr = new PassThrough();
  private child: ChildProcess | undefined;
  private untrack: () => void = () => undefined;
  private readonly buffer = new ReadBuffer();
  private closing: Promise<void> | undefined;

  constructor(private readonly params: StdioServerParams) {}

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  start(): Promise<void> {
    if (this.child) return Promise.reject(new Error('the stdio transport is already started'));
    return new Promise((resolve, reject) => {
      const child = spawn(this.params.command, [...(this.params.args ?? [])], {
        env: { ...getDefaultEnvironment(), ...this.params.env },
        cwd: this.params.cwd,
        stdio: ['pipe', 'pipe', 'pipe'],
        detached: true, // its own process group: the server and everything it starts
        shell: false,
      });
      this.child = child;
      child.once('error', (error) => {
        reject(error);
        this.onerror?.(error);
      });
      child.once('spawn', () => {
        if (child.pid !== undefined) this.untrack = trackProcessGroup(child.pid);
        resolve();
      });
      // The leader is gone (stopped or crashed): whatever it left in its group goes with it, so
      // no helper keeps our pipes open and 'close' (all pipes drained) follows.
      child.once('exit', () => {
        this.signalGroup('SIGKILL');
        this.untrack();
      });
      child.once('close', () => this.onclose?.());
      child.stdin!.on('error', (error) => this.onerror?.(error));
      child.stdout!.on('data', (chunk: Buffer) => {
        this.buffer.append(chunk);
        this.readMessages();
      });
      child.stderr!.pipe(this.stderr);
    });
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.closing) return Promise.reject(new Error('the stdio server is not connected'));
    return new Promise((resolve) => {
      if (stdin.write(serializeMessage(message))) resolve();
      else stdin.once('drain', resolve);
    });
  }

  close(): Promise<void> {
    this.closing ??= this.stop();
    return this.closing;
  }

  private async stop(): Promise<void> {
    const child = this.child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
    const grace = this.params.graceMs ?? DEFAULT_GRACE_MS;
    child.stdin!.end();
    if (await settlesWithin(exited, grace)) return;
    this.signalGroup('SIGTERM');
    if (await settlesWithin(exited, grace)) return;
    this.signalGroup('SIGKILL');
    await exited;
  }

  private signalGroup(signal: NodeJS.Signals): void {
    const pid = this.child?.pid;
    if (pid === undefined) return;
    try {
      process.kill(-pid, signal);
    } catch {
      // ESRCH: nothing of the group is left
    }
  }

  private readMessages(): void {
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.buffer.readMessage();
      } catch (error) {
        this.onerror?.(error as Error); // one bad line; the next ones may be fine
        continue;
      }
      if (message === null) return;
      this.onmessage?.(message);
    }
  }
}

/** True when `promise` settled within `ms` (a shutdown bound, never a test's timing). */
function settlesWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
