/**
 * One terminal scenario: a sandbox (workspace + HOME), the scripted model server, and rxagent
 * running in tmux against it. `normalize` makes a screen comparable with a text fixture: the
 * sandbox path, session ids and measured times vary from run to run, nothing else does.
 */
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { Script } from '../../src/testing/script.js';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import { assertBuilt, makeSandbox, removeSandboxes } from '../cli/helpers.js';
import { startTerminal, type Terminal } from './tmux.js';

export interface Scenario {
  readonly term: Terminal;
  readonly server: ScriptedServer;
  readonly box: { readonly cwd: string; readonly home: string };
  /** Starts rxagent again in the same sandbox, against the same server. */
  restart(args?: readonly string[]): Terminal;
  close(): Promise<void>;
}

export interface ScenarioOptions {
  readonly script: Script;
  readonly args?: readonly string[];
  readonly files?: Readonly<Record<string, string>>;
  readonly width?: number;
  readonly height?: number;
}

/** The prompt line is drawn once startup is done. */
export const READY = /Type a request, or \/help[\s\S]*❯/;

export async function openScenario(options: ScenarioOptions): Promise<Scenario> {
  const box = makeSandbox(options.files);
  const server = await startScriptedServer({ script: options.script });
  const terminals: Terminal[] = [];
  const start = (args: readonly string[]) => {
    const term = startTerminal({ ...box, baseURL: server.baseURL, args, ...(options.width ? { width: options.width } : {}), ...(options.height ? { height: options.height } : {}) });
    terminals.push(term);
    return term;
  };
  const term = start(options.args ?? []);
  return {
    term,
    server,
    box,
    restart: (args = options.args ?? []) => start(args),
    async close() {
      for (const t of terminals) t.kill();
      await server.close();
    },
  };
}

/**
 * For a test file: checks the build first, closes each test's scenario after it (its tmux server
 * and model server) and removes the sandboxes at the end. Returns the opener to call in a test.
 */
export function useScenarios(): (options: ScenarioOptions) => Promise<Scenario> {
  let open: Scenario[] = [];
  beforeAll(assertBuilt);
  afterAll(removeSandboxes);
  afterEach(async () => {
    await Promise.all(open.map((s) => s.close()));
    open = [];
  });
  return async (options) => {
    const scenario = await openScenario(options);
    open.push(scenario);
    return scenario;
  };
}

/** The text of a request's last user message (what the person's prompt became). */
export function lastUserText(request: MessagesRequest): string {
  const last = [...request.messages].reverse().find((m) => m.role === 'user');
  if (!last) return '';
  if (typeof last.content === 'string') return last.content;
  return last.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

/** A screen with what varies between runs replaced: the sandbox path, uuids, times. */
export function normalize(screen: string, cwd: string): string {
  return screen
    .split(cwd)
    .join('<cwd>')
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, '<session>')
    .replace(/\b\d+(\.\d+)?(ms|s)\b/g, '<t>')
    // Token counts and costs follow the size of the request (system prompt, tool schemas).
    .replace(/\d[\d,]* in \/ \d[\d,]* out tokens · \$\d+\.\d{4}/g, '<n> in / <n> out tokens · $<cost>')
    .replace(/· \$\d+\.\d{4}$/gm, '· $<cost>')
    // So does the share of the model's context window in the status line.
    .replace(/· context \d+% ·/g, '· context <p>% ·')
    .replace(/─+/g, '───');
}
