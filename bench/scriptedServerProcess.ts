/** Starts `scriptedServerMain.js` in a child process (see that file for why). */
import { spawnServerProcess } from './serverProcess.js';

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
  const server = await spawnServerProcess('scriptedServerMain.js', validate ? [script, 'validate'] : [script]);
  return {
    baseURL: `http://127.0.0.1:${server.port}`,
    async close() {
      const summary = await server.close();
      return summary === undefined ? { requests: -1, invalid: -1 } : (JSON.parse(summary) as { requests: number; invalid: number });
    },
  };
}
