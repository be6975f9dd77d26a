/**
 * Drives the BUILT `rxagent` through the real Claude Agent SDK: `query()` starts it as its
 * Claude Code executable (`pathToClaudeCodeExecutable`), exactly as an SDK program written for
 * Claude Code would, with ANTHROPIC_BASE_URL at a scripted model server on 127.0.0.1.
 */
import { query, type Options, type Query, type SDKMessage, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import type { Script } from '../../src/testing/script.js';
import { CLI, makeSandbox } from '../cli/helpers.js';

export { assertBuilt, removeSandboxes } from '../cli/helpers.js';

export interface SdkRun {
  readonly messages: SDKMessage[];
  readonly server: ScriptedServer;
  readonly cwd: string;
  readonly home: string;
  /** What the engine wrote on stderr. */
  readonly stderr: string;
  /**
   * What the SDK threw after the last message, if anything: when the engine exits non-zero after
   * an error result, the SDK throws "Claude Code returned an error result: <text>" (as with
   * Claude Code, which exits 1 after an error result).
   */
  readonly error: Error | undefined;
}

export interface SdkRunOptions {
  /** Files to create in the workspace. */
  readonly files?: Readonly<Record<string, string>>;
  readonly sandbox?: { cwd: string; home: string };
  readonly env?: Readonly<Record<string, string>>;
  /** Called with the query handle before iterating (interrupt, setPermissionMode, ...). */
  readonly withQuery?: (q: Query) => void;
  /** Called with each message as it arrives; may act on the query. */
  readonly onMessage?: (message: SDKMessage, q: Query) => void | Promise<void>;
  /** Awaited after the query ended, before the server closes (e.g. to wait for a connection to close). */
  readonly afterQuery?: (server: ScriptedServer) => Promise<void>;
}

/** The SDK options every test shares: our CLI, the scripted server, a workspace and HOME of its own. */
export function engineOptions(server: ScriptedServer, sandbox: { cwd: string; home: string }, env: Readonly<Record<string, string>> = {}, stderr?: (text: string) => void): Options {
  return {
    pathToClaudeCodeExecutable: CLI,
    cwd: sandbox.cwd,
    env: {
      PATH: process.env['PATH'] ?? '',
      HOME: sandbox.home,
      ANTHROPIC_API_KEY: 'test-key',
      ANTHROPIC_BASE_URL: server.baseURL,
      ...env,
    },
    ...(stderr ? { stderr } : {}),
  };
}

/** Runs one query against a scripted server and collects every message the SDK yields. */
export async function runQuery(
  script: Script,
  prompt: string | AsyncIterable<SDKUserMessage>,
  options: Partial<Options>,
  run: SdkRunOptions = {},
): Promise<SdkRun> {
  const server = await startScriptedServer({ script });
  const sandbox = run.sandbox ?? makeSandbox(run.files ?? {});
  let stderr = '';
  try {
    const q = query({ prompt, options: { ...engineOptions(server, sandbox, run.env, (t) => (stderr += t)), ...options } });
    run.withQuery?.(q);
    const messages: SDKMessage[] = [];
    let error: Error | undefined;
    try {
      for await (const message of q) {
        messages.push(message);
        await run.onMessage?.(message, q);
      }
    } catch (thrown) {
      error = thrown as Error;
    }
    await run.afterQuery?.(server);
    return { messages, server, ...sandbox, stderr, error };
  } finally {
    await server.close();
  }
}

/** A user message as the SDK's streaming input takes it. */
export function userMessage(text: string): SDKUserMessage {
  return { type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null };
}

/**
 * Streaming input that yields each prompt only after the previous turn's result arrived, as a
 * chat front end does: `next()` is called by the test's onMessage on each result.
 */
export function promptsAfterResults(prompts: readonly string[]): { input: AsyncIterable<SDKUserMessage>; resultSeen: () => void } {
  let release: (() => void) | undefined;
  let results = 0;
  const waitForResult = (n: number) =>
    new Promise<void>((resolve) => {
      if (results >= n) return resolve();
      release = () => {
        if (results >= n) resolve();
      };
    });
  return {
    input: (async function* () {
      for (let i = 0; i < prompts.length; i++) {
        if (i > 0) await waitForResult(i);
        yield userMessage(prompts[i] as string);
      }
    })(),
    resultSeen: () => {
      results += 1;
      release?.();
    },
  };
}

export const resultOf = (messages: readonly SDKMessage[]) => messages.filter((m): m is Extract<SDKMessage, { type: 'result' }> => m.type === 'result');

/** tool_use_id -> the user message that carried its result. */
export function resultsById(messages: readonly SDKMessage[]): Map<string, Extract<SDKMessage, { type: 'user' }>> {
  const byId = new Map<string, Extract<SDKMessage, { type: 'user' }>>();
  for (const m of messages) {
    if (m.type !== 'user' || typeof m.message.content === 'string') continue;
    for (const block of m.message.content) if (block.type === 'tool_result') byId.set(block.tool_use_id, m);
  }
  return byId;
}
