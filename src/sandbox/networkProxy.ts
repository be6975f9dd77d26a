/**
 * `sandbox.network.allowedDomains` enforced: sandboxed commands have no network of their own (a
 * network namespace with only loopback); their one way out is an HTTP proxy that rxagent runs on a
 * Unix socket, which tunnels (`CONNECT host:port`) or forwards (`GET http://host/...`) only to the
 * allowed domains. Inside the sandbox a small bridge listens on 127.0.0.1 and passes connections
 * to that socket, and the proxy variables (`HTTPS_PROXY`, `HTTP_PROXY`, `ALL_PROXY`, lower case
 * too) point there. This is what Claude Code's sandbox does; like it, only programs that honour
 * the proxy variables reach anything (curl, git, npm, pip do), and nothing else gets out at all.
 *
 * Domain rules follow Claude Code's: `example.com` is that host only, `*.example.com` its
 * subdomains (not the domain itself), `*` anything (then the host network is shared instead).
 * Names are compared case-insensitively without a trailing dot. The proxy resolves names on the
 * host: an allowed name that resolves to a loopback or private address is still reached (the
 * README says so).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Whether `host` is allowed by the rules (see the module comment). */
export function domainAllowed(host: string, allowed: readonly string[]): boolean {
  const name = normalizeHost(host);
  if (name === '') return false;
  return allowed.some((rule) => {
    const r = normalizeHost(rule);
    if (r === '*') return true;
    if (r.startsWith('*.')) return name.endsWith(r.slice(1)) && name.length > r.length - 1;
    return name === r;
  });
}

function normalizeHost(host: string): string {
  const h = host.trim().toLowerCase().replace(/\.$/, '');
  return h.startsWith('[') && h.endsWith(']') ? h.slice(1, -1) : h;
}

/** `host:port` of a CONNECT target (IPv6 in brackets); undefined when malformed. */
export function parseAuthority(authority: string): { host: string; port: number } | undefined {
  const m = /^(\[[0-9a-fA-F:.]+\]|[^:[\]/\s]+):(\d{1,5})$/.exec(authority);
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return undefined;
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
}

export interface NetworkProxy {
  /** The Unix socket the sandbox's bridge connects to. */
  readonly socketPath: string;
  /** The folder holding the socket (mounted into each sandbox). */
  readonly socketDir: string;
  /** Stops the proxy and removes its folder. */
  close(): void;
}

/**
 * Starts the proxy for one run. The server does not keep the process alive (`unref`), and its
 * folder is removed on close and at exit. `onRefused` is told each refused destination.
 */
export function startNetworkProxy(allowed: readonly string[], onRefused?: (host: string) => void): NetworkProxy {
  const socketDir = mkdtempSync(join(tmpdir(), 'rxagent-net-'));
  const socketPath = join(socketDir, 'proxy.sock');
  const refuse = (host: string) => onRefused?.(host);
  const server: Server = createServer((req, res) => forwardPlainHttp(req, res, allowed, refuse));
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => tunnel(req, client, head, allowed, refuse));
  server.on('clientError', (_error, socket) => socket.destroy());
  server.listen(socketPath);
  server.unref();
  const cleanup = () => rmSync(socketDir, { recursive: true, force: true });
  process.once('exit', cleanup);
  return {
    socketPath,
    socketDir,
    close() {
      server.close();
      process.off('exit', cleanup);
      cleanup();
    },
  };
}

function tunnel(req: IncomingMessage, client: Socket, head: Buffer, allowed: readonly string[], refuse: (host: string) => void): void {
  client.on('error', () => client.destroy());
  const target = parseAuthority(req.url ?? '');
  if (!target || !domainAllowed(target.host, allowed)) {
    refuse(target?.host ?? String(req.url));
    client.end('HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\nrxagent sandbox: this host is not in sandbox.network.allowedDomains\n');
    return;
  }
  const upstream = connect(target.port, target.host, () => {
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

function forwardPlainHttp(req: IncomingMessage, res: ServerResponse, allowed: readonly string[], refuse: (host: string) => void): void {
  let url: URL;
  try {
    url = new URL(req.url ?? '');
  } catch {
    res.writeHead(400).end('rxagent sandbox: a proxy request needs an absolute http:// URL\n');
    return;
  }
  if (url.protocol !== 'http:' || !domainAllowed(url.hostname, allowed)) {
    refuse(url.hostname);
    res.writeHead(403, { 'content-type': 'text/plain' }).end('rxagent sandbox: this host is not in sandbox.network.allowedDomains\n');
    return;
  }
  const upstream = httpRequest(
    { host: url.hostname.replace(/^\[|\]$/g, ''), port: url.port || 80, method: req.method, path: `${url.pathname}${url.search}`, headers: withoutHopHeaders(req.headers) },
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

/**
 * The bridge, run by the sandbox's node: listens on 127.0.0.1:BRIDGE_PORT, passes each connection
 * to the proxy's socket, and says `ready` on stdout once listening (the command waits for it).
 */
export const BRIDGE_SOURCE = `const net = require('node:net');
const sock = process.env.RXAGENT_PROXY_SOCKET;
net.createServer((c) => { const u = net.connect(sock); u.on('error', () => c.destroy()); c.on('error', () => u.destroy()); c.pipe(u).pipe(c); })
  .listen(${BRIDGE_PORT}, '127.0.0.1', () => process.stdout.write('ready\\n'));`;

/**
 * The shell line a sandboxed command runs under when the proxy is on: start the bridge, wait
 * until it listens (a FIFO read, no polling), then run the command itself (`$0`) in a fresh bash.
 */
export const BRIDGE_LAUNCHER =
  'f=/tmp/.rxagent-proxy-ready; mkfifo "$f" && { "$RXAGENT_NODE" -e "$RXAGENT_PROXY_BRIDGE" >"$f" 2>/dev/null </dev/null & read -r _ <"$f"; }; rm -f "$f"; ' +
  'unset RXAGENT_NODE RXAGENT_PROXY_BRIDGE RXAGENT_PROXY_SOCKET; exec "$BASH" -c "$0"';

/** What bwrap adds for the proxy: the socket's folder, the bridge, the proxy variables. */
export function proxyBwrapArgs(proxy: Pick<NetworkProxy, 'socketDir' | 'socketPath'>, node: string): string[] {
  const url = `http://127.0.0.1:${BRIDGE_PORT}`;
  const args = ['--ro-bind', proxy.socketDir, proxy.socketDir, '--setenv', 'RXAGENT_PROXY_SOCKET', proxy.socketPath, '--setenv', 'RXAGENT_NODE', node, '--setenv', 'RXAGENT_PROXY_BRIDGE', BRIDGE_SOURCE];
  for (const name of ['HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY', 'https_proxy', 'http_proxy', 'all_proxy']) args.push('--setenv', name, url);
  args.push('--unsetenv', 'NO_PROXY', '--unsetenv', 'no_proxy');
  return args;
}
