/**
 * Which store a command-line run keeps its transcript in: the JSONL files by default, PostgreSQL
 * when `--session-store <url>` or `RXAGENT_SESSION_STORE` names one. The PostgreSQL driver is
 * loaded only then, so a run on files pays nothing for it at start.
 *
 * A session's subagent transcripts go to the same store: files beside the session's, or rows in
 * the same database under a workspace of their own. Oversized tool results stay in the local
 * session directory: the Read tool opens them as files, on the machine that ran the tool.
 */
import { ConfigurationError } from '../errors.js';
import { join } from 'node:path';
import { createJsonlSessionStore, type JsonlSessionStore } from '../session/jsonlSessionStore.js';
import type { SessionStore } from '../session/store.js';

export interface ChosenSessionStore {
  readonly store: SessionStore;
  /** What hooks and the init line are told the transcript is (a file path, or `postgres://…#id`). */
  transcriptPathOf(sessionId: string): string;
  /** Where the subagents of `parentSessionId` keep their transcripts (one session per agent id). */
  childTranscripts(parentSessionId: string): ChildTranscriptStore;
  /** Closes the database pool (after the session's writer is closed). No-op for files. */
  end(): Promise<void>;
}

export interface ChildTranscriptStore {
  readonly store: SessionStore;
  /** What a SubagentStop hook is told the child's transcript is. */
  pathOf(agentId: string): string;
}

export interface ChooseOptions {
  /** `RXAGENT_SESSION_STORE` (when the flag is not given) and `RXAGENT_SESSION_LEASE_MS` are read from it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly redactSecrets: readonly string[];
  readonly onWarning: (message: string) => void;
}

/**
 * `flag` (else `RXAGENT_SESSION_STORE`) undefined or empty: the local files. Rejects with
 * `SessionStoreUnavailableError` when the database cannot be had, `ConfigurationError` for a bad lease.
 */
export async function chooseSessionStore(
  flag: string | undefined,
  local: JsonlSessionStore,
  { env, redactSecrets, onWarning }: ChooseOptions,
): Promise<ChosenSessionStore> {
  const url = flag ?? env['RXAGENT_SESSION_STORE'];
  if (url === undefined || url === '') {
    return {
      store: local,
      transcriptPathOf: (id) => local.pathOf(id),
      childTranscripts: (parent) => {
        const store = createJsonlSessionStore({ workspace: local.workspace, dir: join(local.dir, parent, 'subagents'), redactSecrets });
        return { store, pathOf: (agentId) => store.pathOf(agentId) };
      },
      end: async () => undefined,
    };
  }
  const { createPgSessionStore } = await import('./pgSessionStore.js');
  const { describeUrl } = await import('./errors.js');
  const leaseMs = leaseFrom(env['RXAGENT_SESSION_LEASE_MS']);
  const store = await createPgSessionStore({ url, workspace: local.workspace, redactSecrets, onWarning, ...(leaseMs ? { leaseMs } : {}) });
  return {
    store,
    transcriptPathOf: (id) => `${describeUrl(url)}#${id}`,
    childTranscripts: (parent) => ({ store: store.scoped(subagentWorkspace(store.workspace, parent)), pathOf: (agentId) => `${describeUrl(url)}#${agentId}` }),
    end: () => store.end(),
  };
}

/** The workspace a session's subagent transcripts are kept under in the database (never a project's). */
export function subagentWorkspace(workspace: string, parentSessionId: string): string {
  return `${workspace}#subagents-of-${parentSessionId}`;
}

/** `RXAGENT_SESSION_LEASE_MS`: how long a dead holder keeps a session (default 30 s). */
function leaseFrom(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 100) throw new ConfigurationError(`RXAGENT_SESSION_LEASE_MS must be a whole number of milliseconds >= 100 (got '${value}')`);
  return n;
}
