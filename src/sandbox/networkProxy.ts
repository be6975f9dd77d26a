/**
 * `sandbox.network.allowedDomains` enforced: sandboxed commands have no network of their own (a
 * network namespace with only loopback); their one way out is an HTTP proxy in rxagent, which
 * tunnels (`CONNECT host:port`) or forwards (`GET http://host/...`) only to allowed destinations
 * (destinationCheck.ts: the domain rules, and no loopback/private address unless listed exactly).
 * The proxy variables (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, lower case too) point to
 * 127.0.0.1:3128 inside the sandbox; like Claude Code's sandbox, only programs that honour them
 * reach anything (curl, git, npm, pip do), and nothing else gets out at all.
 *
 * How the sandbox reaches the proxy without any Unix socket: before the command runs, a bridge
 * (`node -e`, the same node binary) creates the listening TCP socket on 127.0.0.1:3128 inside the
 * sandbox's network namespace and hands it to rxagent over a Node IPC channel (an inherited
 * socketpair, fd 4), then exits. rxagent accepts on that socket itself, so every connection made
 * inside the sandbox arrives straight at the proxy. The command never has the channel (the
 * launcher closes fd 4 before it runs), needs no socket file, and the seccomp filter that refuses
 * `socket(AF_UNIX)` applies to the bridge and the command alike.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, Server as NetServer, type Socket } from 'node:net';
import { resolveDestination } from './destinationCheck.js';

export { domainAllowed } from './destinationCheck.js';

/** `host:port` of a CONNECT target (IPv6 in brackets); undefined when malformed. */
export function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/\s]+):(\d{1,5})$/.exec(authority);
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

export interface NetworkProxy {
  /**
   * Takes the listening socket the bridge of `child` sends (once), and serves its connections;
   * returns the call that stops listening there (when the child is gone).
   */
  adoptBridge(child: ChildProcess): () => void;
  /** Stops the proxy: open tunnels and bridge sockets are closed, later bridges refused. */
  close(): void;
}

/** The IPC message the bridge sends with its socket. */
export const BRIDGE_MESSAGE = 'rxagent-proxy-bridge';

/** Starts the proxy for one run. `onRefused` is told each refused destination. */
export function startNetworkProxy(allowed: readonly string[], onRefused?: (host: string, reason: string) => void): NetworkProxy {
  const refuse = (host: string, reason: string) => onRefused?.(host, reason);
  const server: Server = createServer((req, res) => void forwardPlainHttp(req, res, allowed, refuse));
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => void tunnel(req, client, head, allowed, refuse));
  server.on('clientError', (_error, socket) => socket.destroy());
  const listening = new Set<NetServer>();
  let closed = false;
  return {
    adoptBridge(child) {
      let socket: NetServer | undefined;
      child.once('message', (message: unknown, handle: unknown) => {
        if (child.connected) child.disconnect(); // one message, then nothing more from inside
        if (message !== BRIDGE_MESSAGE || !(handle instanceof NetServer) || closed) {
          if (handle instanceof NetServer) handle.close();
          return;
        }
        socket = handle;
        listening.add(handle);
        handle.unref();
        handle.on('error', () => handle.close());
        handle.on('connection', (connection: Socket) => server.emit('connection', connection));
      });
      return () => {
        if (child.connected) child.disconnect();
        if (socket) {
          socket.close();
          listening.delete(socket);
        }
      };
    },
    close() {
      closed = true;
      for (const socket of listening) socket.close();
      listening.clear();
      server.close();
      server.closeAllConnections();
    },
  };
}

const FORBIDDEN = (reason: string) => `HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\nrxagent sandbox: ${reason}\n`;

async function tunnel(req: IncomingMessage, client: Socket, head: Buffer, allowed: readonly string[], refuse: (host: string, reason: string) => void): Promise<void> {
  client.on('error', () => client.destroy());
  const target = parseAuthority(req.url ?? '');
  const destination = target ? await resolveDestination(target.host, allowed) : { ok: false as const, reason: 'a CONNECT target is host:port' };
  if (!target || !destination.ok) {
    const reason = destination.ok ? '' : destination.reason;
    refuse(target?.host ?? String(req.url), reason);
    client.end(FORBIDDEN(reason));
    return;
  }
  const upstream = connect(target.port, destination.address, () => {
    client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
    if (head.length > 0) upstream.write(head);
    upstream.pipe(client);
    client.pipe(upstream);
  });
  upstream.on('error', () => {
    if (!client.destroyed) client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
  });
  client.on('close', () => upstream.destroy());
}

async function forwardPlainHttp(req: IncomingMessage, res: ServerResponse, allowed: readonly string[], refuse: (host: string, reason: string) => void): Promise<void> {
  let url: URL;
  try {
    url = new URL(req.url ?? '');
  } catch {
    res.writeHead(400).end('rxagent sandbox: a proxy request needs an absolute http:// URL\n');
    return;
  }
  const destination = url.protocol === 'http:' ? await resolveDestination(url.hostname, allowed) : { ok: false as const, reason: 'only http:// is forwarded (use CONNECT for https)' };
  if (!destination.ok) {
    refuse(url.hostname, destination.reason);
    res.writeHead(403, { 'content-type': 'text/plain' }).end(`rxagent sandbox: ${destination.reason}\n`);
    return;
  }
  // To the checked address; the Host header (passed on) still names the site.
  const upstream = httpRequest(
    { host: destination.address, port: url.port || 80, method: req.method, path: `${url.pathname}${url.search}`, headers: withoutHopHeaders(req.headers) },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502).end();
    else res.destroy();
  });
  req.pipe(upstream);
}

/** Headers for one hop only (RFC 9110 §7.6.1) are not passed on. */
function withoutHopHeaders(headers: IncomingMessage['headers']): IncomingMessage['headers'] {
  const out = { ...headers };
  for (const name of ['proxy-connection', 'proxy-authorization', 'connection', 'keep-alive', 'te', 'trailer', 'upgrade']) delete out[name];
  return out;
}

/** The port the bridge listens on inside each sandbox (its own network namespace: always free). */
export const BRIDGE_PORT = 3128;
/** The bridge's IPC channel (processGroup puts `fds[1]` there). */
export const BRIDGE_CHANNEL_FD = 4;

/** The bridge, run by the sandbox's node: listens, hands the socket to rxagent, exits. */
export const BRIDGE_SOURCE = `const s = require('node:net').createServer();
s.on('error', () => process.exit(1));
s.listen(${BRIDGE_PORT}, '127.0.0.1', () => process.send(${JSON.stringify(BRIDGE_MESSAGE)}, s, () => process.exit(0)));`;

/**
 * The shell the sandbox's launcher (bwrap.ts) runs before the command when the proxy is on: run
 * the bridge to its end (the socket is listening once it has), close the channel, and drop the
 * bridge's variables; the launcher then runs the command (`$0`) in a fresh bash, so the command
 * text is never spliced into this script.
 */
export const BRIDGE_SETUP =
  `"$RXAGENT_NODE" -e "$RXAGENT_PROXY_BRIDGE" </dev/null >/dev/null 2>&1; exec ${BRIDGE_CHANNEL_FD}>&-; ` +
  'unset RXAGENT_NODE RXAGENT_PROXY_BRIDGE NODE_CHANNEL_FD NODE_CHANNEL_SERIALIZATION_MODE; ';

/** What bwrap adds for the proxy: the bridge and the proxy variables. */
export function proxyBwrapArgs(node: string): string[] {
  const url = `http://127.0.0.1:${BRIDGE_PORT}`;
  const args = ['--setenv', 'RXAGENT_NODE', node, '--setenv', 'RXAGENT_PROXY_BRIDGE', BRIDGE_SOURCE];
  for (const name of ['HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY', 'https_proxy', 'http_proxy', 'all_proxy']) args.push('--setenv', name, url);
  args.push('--unsetenv', 'NO_PROXY', '--unsetenv', 'no_proxy');
  return args;
}
