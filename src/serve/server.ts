/**
 * The `rxagent serve` HTTP server: the page at `/`, its bundle at `/app.js`, the JSON API under
 * `/api/` (routes.ts). Every request passes the access policy first (auth.ts). `close()` ends
 * every run cleanly (terminal, transcript flushed, tools' processes stopped by the abort), then
 * every open event stream, then the listener.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAccessPolicy, type AccessPolicy } from './auth.js';
import { HttpError, sendError } from './http.js';
import type { SessionHub } from './hub.js';
import { pageHtml, readBundle } from './page/assets.js';
import { handleApi, type StoredSession } from './routes.js';

export interface ServeServerOptions {
  readonly host: string;
  readonly port: number;
  /** Required on every request when set (non-loopback hosts). */
  readonly token: string | undefined;
  readonly hub: SessionHub;
  readonly listStored: () => Promise<readonly StoredSession[]>;
  readonly onError?: (error: unknown) => void;
}

export interface ServeServer {
  /** The page's URL (with `?token=` when a token is required). */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

function urlHost(host: string): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

export async function startServeServer(options: ServeServerOptions): Promise<ServeServer> {
  const access: AccessPolicy = createAccessPolicy(options.token);
  const streams = new Set<() => void>();
  const trackStream = (end: () => void) => {
    streams.add(end);
    return () => void streams.delete(end);
  };
  const ctx = { hub: options.hub, listStored: options.listStored, trackStream };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://server.invalid');
    access.check(req, url.searchParams);
    if (url.pathname.startsWith('/api/')) return handleApi(ctx, req, res, url);
    if (req.method !== 'GET' && req.method !== 'HEAD') throw new HttpError(405, 'method_not_allowed', `${req.method} is not allowed on ${url.pathname}`);
    if (url.pathname === '/' || url.pathname === '/index.html') {
      const html = pageHtml(access.token);
      res.writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'cache-control': 'no-store',
        // The page loads nothing but its own bundle and talks to nothing but this server.
        'content-security-policy': "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
        'x-content-type-options': 'nosniff',
      });
      return void res.end(html);
    }
    if (url.pathname === '/app.js') {
      const bundle = readBundle();
      if (bundle === undefined) throw new HttpError(404, 'not_built', 'the page bundle is missing: run `npm run build`');
      res.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
      return void res.end(bundle);
    }
    throw new HttpError(404, 'not_found', `nothing at ${url.pathname}`);
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) return void res.end();
      if (error instanceof HttpError) return sendError(res, error);
      options.onError?.(error);
      sendError(res, new HttpError(500, 'internal_error', error instanceof Error ? error.message : String(error)));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const base = `http://${urlHost(options.host)}:${port}/`;
  let closing: Promise<void> | undefined;
  return {
    url: options.token === undefined ? base : `${base}?token=${options.token}`,
    port,
    close: () =>
      (closing ??= (async () => {
        await options.hub.closeAll();
        for (const end of [...streams]) end();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      })()),
  };
}
