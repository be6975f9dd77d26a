/**
 * The Bash permission check off the main thread: one long-lived worker thread, started at the
 * first check, that answers `answerBashCheck` requests (bashCheck.ts) in order.
 *
 * Why a worker and not "inline when small": mvdan-sh is compiled Go and costs the thread that
 * runs it far more than its size suggests. Measured here (load 3–7 on 2 cores): loading it
 * holds the thread ~190 ms; classifying `npm test` takes 0.3–1 ms at the median but 20–60 ms at
 * the 90th percentile (its garbage triggers full collections); 128 characters of `cat a* a* …`
 * 13 ms at the median. No size is "tiny" with that tail, so every Bash permission check goes
 * here. (The one parse left on the main thread is the Bash tool's synchronous concurrency
 * safety of short commands, bash.ts `INLINE_CONCURRENCY_CHARS`.)
 *
 * - Lazily started and unref'd while idle: it never keeps the process alive, but a check in
 *   flight does (ref'd until its answer), so a run cannot exit under a pending decision.
 * - Restarted when it dies: the checks it had are failed with `BashCheckFailed` (their commands
 *   then ask; never allowed), the next check starts a fresh worker.
 * - Bounded input: a command longer than the parser reads is refused before it is copied over.
 * - An aborted signal ends the wait at once; the worker's late answer is dropped.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { MAX_PARSED_COMMAND_CHARS } from '../tools/builtin/shellParse.js';
import type { BashCheckAnswer, BashCheckRequest, BashFacts } from './bashCheck.js';

/** Why a Bash check has no answer. */
export type BashCheckFailure = 'too_long' | 'worker_failed' | 'worker_missing';

/** The permission check of a Bash command could not finish. Its command asks; it is never allowed. */
export class BashCheckFailed extends Error {
  override readonly name = 'BashCheckFailed';
  constructor(
    readonly failure: BashCheckFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface BashChecker {
  /** Answers one request in the worker; rejects with `BashCheckFailed`, or the signal's reason once aborted. */
  check<K extends BashCheckRequest['kind']>(request: BashCheckRequest & { readonly kind: K }, signal?: AbortSignal): Promise<BashCheckAnswer<K>>;
  /** The facts of this exact command text if an answer already brought them (they depend on the text only). */
  known(command: string): BashFacts | undefined;
}

export interface BashCheckThread extends BashChecker {
  /** Stops the worker (tests; a process exit does it anyway). Pending checks fail. */
  stop(): Promise<void>;
}

export interface BashCheckThreadOptions {
  /** The worker's script (tests give one that dies); default the built bashCheckWorker.js. */
  readonly workerUrl?: URL;
}

type Reply = { readonly id: number; readonly ok: true; readonly answer: unknown } | { readonly id: number; readonly ok: false; readonly message: string };

interface Pending {
  /** The worker the request went to: only its death fails the request. */
  readonly worker: Worker;
  readonly resolve: (answer: unknown) => void;
  readonly reject: (error: unknown) => void;
}

/*
 * Where the built worker is: beside this module (tsc's dist/src/permissions/), one folder over
 * from the CLI bundle (dist/src/cli/ and dist/src/chunks/), or, run from the TypeScript sources
 * (vitest), in dist/ after `npm run build`: a worker cannot load .ts files on Node 20.
 */
const WORKER_CANDIDATES = [
  new URL('./bashCheckWorker.js', import.meta.url),
  new URL('../permissions/bashCheckWorker.js', import.meta.url),
  new URL('../../dist/src/permissions/bashCheckWorker.js', import.meta.url),
];

function builtWorker(): URL | undefined {
  return WORKER_CANDIDATES.find((candidate) => existsSync(fileURLToPath(candidate)));
}

/** Facts kept per command text, most recently used last: a call's sandbox access reads them right after its check. */
const FACTS_KEPT = 64;

export function createBashCheckThread(options: BashCheckThreadOptions = {}): BashCheckThread {
  let worker: Worker | undefined;
  let nextId = 0;
  const pending = new Map<number, Pending>();
  const facts = new Map<string, BashFacts>();

  const remember = (command: string, known: BashFacts): void => {
    facts.delete(command);
    facts.set(command, known);
    if (facts.size > FACTS_KEPT) facts.delete(facts.keys().next().value as string);
  };

  const failAllOf = (dead: Worker, error: BashCheckFailed): void => {
    for (const [id, p] of [...pending]) {
      if (p.worker !== dead) continue;
      pending.delete(id);
      p.reject(error);
    }
  };

  const settle = (id: number): Pending | undefined => {
    const p = pending.get(id);
    if (p === undefined) return undefined;
    pending.delete(id);
    // Idle again: the worker must not keep the process alive.
    if (![...pending.values()].some((other) => other.worker === p.worker)) p.worker.unref();
    return p;
  };

  const start = (): Worker | BashCheckFailed => {
    const url = options.workerUrl ?? builtWorker();
    if (url === undefined) return new BashCheckFailed('worker_missing', 'the permission check worker is not built (run npm run build)');
    const started = new Worker(url);
    started.unref();
    started.on('message', (reply: Reply) => {
      const p = settle(reply.id);
      if (p === undefined) return; // aborted meanwhile
      if (reply.ok) p.resolve(reply.answer);
      else p.reject(new BashCheckFailed('worker_failed', `the permission check failed: ${reply.message}`));
    });
    started.on('error', (error: Error) => {
      if (worker === started) worker = undefined;
      failAllOf(started, new BashCheckFailed('worker_failed', `the permission check's worker crashed: ${error.message}`));
    });
    started.on('exit', (code) => {
      if (worker === started) worker = undefined;
      failAllOf(started, new BashCheckFailed('worker_failed', `the permission check's worker stopped (exit code ${code})`));
    });
    return started;
  };

  return {
    known(command) {
      const found = facts.get(command);
      if (found !== undefined) remember(command, found);
      return found;
    },
    check<K extends BashCheckRequest['kind']>(request: BashCheckRequest & { readonly kind: K }, signal?: AbortSignal): Promise<BashCheckAnswer<K>> {
      if (signal?.aborted) return Promise.reject(signal.reason);
      if (request.command.length > MAX_PARSED_COMMAND_CHARS) {
        return Promise.reject(new BashCheckFailed('too_long', `the command is longer than ${MAX_PARSED_COMMAND_CHARS} characters, too long to check`));
      }
      if (worker === undefined) {
        const started = start();
        if (started instanceof BashCheckFailed) return Promise.reject(started);
        worker = started;
      }
      const id = nextId++;
      const running = worker;
      return new Promise<BashCheckAnswer<K>>((resolve, reject) => {
        const onAbort = (): void => {
          if (settle(id) !== undefined) reject(signal?.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        pending.set(id, {
          worker: running,
          resolve: (answer) => {
            signal?.removeEventListener('abort', onAbort);
            const withFacts = answer as { facts?: BashFacts };
            if (withFacts.facts !== undefined) remember(request.command, withFacts.facts);
            resolve(answer as BashCheckAnswer<K>);
          },
          reject: (error) => {
            signal?.removeEventListener('abort', onAbort);
            reject(error);
          },
        });
        running.ref();
        running.postMessage({ id, request });
      });
    },
    async stop() {
      const running = worker;
      worker = undefined;
      await running?.terminate();
    },
  };
}

let shared: BashCheckThread | undefined;

/** The process's one Bash check thread (the CLI's and `createBuiltinTools`' default). */
export function sharedBashCheck(): BashChecker {
  shared ??= createBashCheckThread();
  return shared;
}
