/**
 * Where a remote MCP server's OAuth state lives between runs: its dynamic client registration,
 * its tokens and the discovery result, one entry per server (name + URL: a server renamed or
 * moved to another URL signs in again rather than sending its tokens somewhere new).
 *
 * The command keeps them in one file, `~/.rxagent/mcp-oauth.json`, owner-only (0600, in a 0700
 * directory), written whole to a temporary file and renamed so a reader never sees half a file.
 * Nothing here logs a value. Two runs signing in to the same server at the same moment: the
 * last write wins (each write re-reads the file first, so other servers' entries are kept).
 */
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { OAuthClientInformationMixed, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';

/** What is kept for one server. */
export interface McpOAuthEntry {
  readonly serverName: string;
  readonly serverUrl: string;
  /** The redirect URI the client was registered with (the loopback callback of the sign-in). */
  readonly redirectUrl?: string;
  readonly clientInformation?: OAuthClientInformationMixed;
  readonly tokens?: OAuthTokens;
  /** When the tokens were saved (ms since the epoch), to tell how old `expires_in` is. */
  readonly savedAt?: number;
  readonly discoveryState?: OAuthDiscoveryState;
}

export interface McpCredentialStore {
  get(serverName: string, serverUrl: string): McpOAuthEntry | undefined;
  /** Merges `change` into the server's entry (a field set to undefined is removed). */
  update(serverName: string, serverUrl: string, change: Partial<Omit<McpOAuthEntry, 'serverName' | 'serverUrl'>>): void;
  /** Forgets the server (a sign-out). */
  remove(serverName: string, serverUrl: string): void;
}

interface StoreFile {
  readonly version: 1;
  readonly servers: Record<string, McpOAuthEntry>;
}

export function credentialKey(serverName: string, serverUrl: string): string {
  return `${serverName}|${createHash('sha256').update(serverUrl).digest('hex').slice(0, 16)}`;
}

/** The command's store: `<homeDir>/.rxagent/mcp-oauth.json`. */
export function credentialFileOf(homeDir: string): string {
  return join(homeDir, '.rxagent', 'mcp-oauth.json');
}

export function createFileCredentialStore(path: string): McpCredentialStore {
  const read = (): StoreFile => {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      return { version: 1, servers: {} };
    }
    try {
      const parsed = JSON.parse(text) as Partial<StoreFile>;
      return parsed.version === 1 && typeof parsed.servers === 'object' && parsed.servers !== null ? (parsed as StoreFile) : { version: 1, servers: {} };
    } catch {
      // A damaged file is treated as empty (the person signs in again) and replaced on the next write.
      return { version: 1, servers: {} };
    }
  };
  const write = (file: StoreFile): void => {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const temp = `${path}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(temp, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    // The mode of a file that existed already is not changed by writeFileSync's `mode`.
    chmodSync(temp, 0o600);
    renameSync(temp, path);
  };
  return {
    get: (serverName, serverUrl) => read().servers[credentialKey(serverName, serverUrl)],
    update(serverName, serverUrl, change) {
      const file = read();
      const key = credentialKey(serverName, serverUrl);
      write({ version: 1, servers: { ...file.servers, [key]: merged(file.servers[key], change, serverName, serverUrl) } });
    },
    remove(serverName, serverUrl) {
      const file = read();
      const key = credentialKey(serverName, serverUrl);
      if (!(key in file.servers)) return;
      const { [key]: _gone, ...rest } = file.servers;
      write({ version: 1, servers: rest });
    },
  };
}

/** A store in memory (library users who keep tokens elsewhere, tests of the provider). */
export function createMemoryCredentialStore(): McpCredentialStore {
  const entries = new Map<string, McpOAuthEntry>();
  return {
    get: (serverName, serverUrl) => entries.get(credentialKey(serverName, serverUrl)),
    update(serverName, serverUrl, change) {
      const key = credentialKey(serverName, serverUrl);
      entries.set(key, merged(entries.get(key), change, serverName, serverUrl));
    },
    remove: (serverName, serverUrl) => void entries.delete(credentialKey(serverName, serverUrl)),
  };
}

/** `change` over `previous`; a field set to undefined is dropped. */
function merged(previous: McpOAuthEntry | undefined, change: Partial<McpOAuthEntry>, serverName: string, serverUrl: string): McpOAuthEntry {
  const out: Record<string, unknown> = { ...previous, ...change, serverName, serverUrl };
  for (const [field, value] of Object.entries(out)) if (value === undefined) delete out[field];
  return out as unknown as McpOAuthEntry;
}
