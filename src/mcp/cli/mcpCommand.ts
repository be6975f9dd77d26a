/**
 * `rxagent mcp login <server>` and `rxagent mcp logout <server>`: sign in to (or out of) a remote
 * MCP server from the shell, as Claude Code's `claude mcp login` does, for servers configured
 * anywhere a run finds them (`--mcp-config`, `.mcp.json`, settings files, `~/.claude.json`).
 *
 * login prints the authorization URL on stderr and opens it (openBrowser.ts) unless `--no-browser`; it waits for the browser to come back to the loopback callback,
 * then says the sign-in worked. The tokens go to `~/.rxagent/mcp-oauth.json` (0600); nothing
 * prints them. The runs that follow connect with them (and refresh them on a 401).
 */
import { homedir } from 'node:os';
import { parseArgs } from 'node:util';
import { UsageError } from '../../cli/args.js';
import { ConfigurationError } from '../../errors.js';
import { expandServerConfig } from '../config.js';
import { createFileCredentialStore, credentialFileOf } from '../oauth/credentialStore.js';
import { openBrowser } from '../oauth/openBrowser.js';
import { isRemoteServer, signInToMcpServer } from '../oauth/signIn.js';
import { resolveMcpServers } from '../sources.js';

export interface McpCommandIo {
  readonly writeOut: (text: string) => void;
  readonly writeErr: (text: string) => void;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly cwd?: string;
  readonly homeDir?: string;
  /** Stops a waiting login (the command wires SIGINT to it). */
  readonly signal?: AbortSignal;
}

const USAGE = 'usage: rxagent mcp login <server> [--mcp-config <file or JSON>]... [--no-browser] | rxagent mcp logout <server> [--mcp-config ...]';

export async function runMcpCommand(argv: readonly string[], io: McpCommandIo): Promise<number> {
  const [action, ...rest] = argv;
  if (action !== 'login' && action !== 'logout') throw new UsageError(USAGE);
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(rest);
  } catch (error) {
    throw new UsageError(`${(error as Error).message}; ${USAGE}`);
  }
  const name = parsed.positionals[0];
  if (name === undefined || parsed.positionals.length > 1) throw new UsageError(USAGE);
  const env = io.env ?? process.env;
  const cwd = io.cwd ?? process.cwd();
  const homeDir = io.homeDir ?? homedir();
  const { servers } = resolveMcpServers({ cwd, homeDir, mcpConfig: parsed.values['mcp-config'] ?? [], strict: false });
  const server = servers[name];
  if (server === undefined) throw new ConfigurationError(`no MCP server named "${name}" is configured (see rxagent --help for where servers are configured)`);
  if (!isRemoteServer(server)) throw new ConfigurationError(`MCP server "${name}" is not a remote (http or sse) server; only those sign in with OAuth`);
  const { config, missing } = expandServerConfig(server, env);
  if (missing.length > 0) throw new ConfigurationError(`MCP server "${name}": environment variable${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not set`);
  if (!isRemoteServer(config)) throw new ConfigurationError(`MCP server "${name}" is not a remote server`);
  const store = createFileCredentialStore(credentialFileOf(homeDir));

  if (action === 'logout') {
    const had = store.get(name, config.url) !== undefined;
    store.remove(name, config.url);
    io.writeOut(had ? `Signed out of the MCP server "${name}".\n` : `No sign-in was stored for the MCP server "${name}".\n`);
    return 0;
  }
  await signInToMcpServer(name, config, {
    store,
    signal: io.signal ?? new AbortController().signal,
    onAuthorizationUrl: (url) => {
      io.writeErr(`Open this URL to sign in to the MCP server "${name}":\n${url.href}\n`);
      if (!parsed.values['no-browser']) openBrowser(url.href, env, (why) => io.writeErr(`(${why})\n`));
    },
  });
  io.writeOut(`Signed in to the MCP server "${name}".\n`);
  return 0;
}

function parse(args: readonly string[]) {
  return parseArgs({
    args: [...args],
    allowPositionals: true,
    options: { 'mcp-config': { type: 'string', multiple: true }, 'no-browser': { type: 'boolean' } },
  });
}
