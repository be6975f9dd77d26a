/** Starts `scriptedServerMain.js` in a child process (see that file for why). */
import { spawnServerProcess, type ServerProcess } from './serverProcess.js';

export interface ScriptedServerProcess {
  readonly baseURL: string;
  /** Stops the server; resolves with how many requests it got and how many it refused as invalid. */
  close(): Promise<{ readonly requests: number; readonly invalid: number }>;
}

/**
 * `script`: a name in `scriptedServerMain.ts`'s SCRIPTS (a run says its length in its prompt);
 * `validate`: check every request like the API (answering invalid ones with a 400).
 */
export async function startScriptedServerProcess(script: string, validate = false): Promise<ScriptedServerProcess> {
  return scriptedServerOf(await spawnServerProcess('scriptedServerMain.js', validate ? [script, 'validate'] : [script]));
}

/** The address of a started `scriptedServerMain.js`, and its close reading the summary it prints last. */
function scriptedServerOf(server: ServerProcess): ScriptedServerProcess {
  return {
    baseURL: `http://127.0.0.1:${server.port}`,
    async close() {
      const summary = await server.close();
      return summary === undefined ? { requests: -1, invalid: -1 } : (JSON.parse(summary) as { requests: number; invalid: number });
    },
  };
}

export interface StampingServerProcess extends ScriptedServerProcess {
  /** The arrival times (ms, the server's clock) of the requests of the next conversation to end. */
  nextArrivals(): Promise<readonly number[]>;
}

/**
 * The scripted server with `stamps` on: for a client in a process of its own (the command), it
 * stamps each request's arrival and reports a conversation's stamps when its last request arrived.
 */
export async function startStampingServerProcess(script: string): Promise<StampingServerProcess> {
  const reported: (readonly number[])[] = [];
  const waiting: ((arrivals: readonly number[]) => void)[] = [];
  const server = await spawnServerProcess('scriptedServerMain.js', [script, 'stamps'], (line) => {
    const parsed = JSON.parse(line) as { arrivals?: number[] };
    if (parsed.arrivals === undefined) return;
    const next = waiting.shift();
    if (next) next(parsed.arrivals);
    else reported.push(parsed.arrivals);
  });
  return {
    ...scriptedServerOf(server),
    nextArrivals: () => {
      const ready = reported.shift();
      return ready !== undefined ? Promise.resolve(ready) : new Promise((resolve) => waiting.push(resolve));
    },
  };
}
