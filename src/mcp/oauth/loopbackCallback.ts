/**
 * The redirect target of a sign-in: an HTTP listener on 127.0.0.1 (RFC 8252's loopback
 * redirect, the IP literal so no `localhost` lookup can send the browser elsewhere) answering
 * `GET /callback?code=…&state=…` once. The port is the configured `callbackPort` (a server whose
 * registration names a fixed redirect URI) or a free one.
 *
 * The callback is accepted only with the `state` this sign-in sent (a page elsewhere cannot feed
 * us a code of its own); the browser gets a short page saying how it went. The code is never
 * written anywhere.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface LoopbackCallback {
  /** `http://127.0.0.1:<port>/callback`. */
  readonly redirectUrl: string;
  /** The authorization code, once the browser came back with it and the expected `state`. */
  code(signal: AbortSignal): Promise<string>;
  close(): Promise<void>;
}

export class McpSignInError extends Error {
  override readonly name = 'McpSignInError';
}

/** `expectedState`: the `state` the sign-in sent, read when the browser comes back (it may come before `code()` is asked). */
export async function listenForCallback(port: number | undefined, serverName: string, expectedState: () => string | undefined): Promise<LoopbackCallback> {
  let deliver: ((outcome: { code: string } | { error: string }) => void) | undefined;
  const pending: Array<{ code: string } | { error: string }> = [];

  const answer = (res: ServerResponse, status: number, text: string) => {
    res.writeHead(status, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(`<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>rxagent</title><p>${escapeHtml(text)}</p>`);
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== '/callback') return answer(res, 404, 'Not found.');
    const state = url.searchParams.get('state');
    const sent = expectedState();
    if (sent === undefined || state !== sent) return answer(res, 400, 'This sign-in link does not belong to the sign-in rxagent started.');
    const error = url.searchParams.get('error');
    const code = url.searchParams.get('code');
    const outcome = error !== null ? { error: `${error}${url.searchParams.get('error_description') ? `: ${url.searchParams.get('error_description')}` : ''}` } : code !== null && code !== '' ? { code } : { error: 'the callback carried no authorization code' };
    answer(res, 'code' in outcome ? 200 : 400, 'code' in outcome ? `Signed in to the MCP server "${serverName}". You can close this tab and go back to rxagent.` : `The sign-in to "${serverName}" failed (${outcome.error}).`);
    if (deliver) deliver(outcome);
    else pending.push(outcome);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new McpSignInError(`the OAuth callback port ${port} is in use (oauth.callbackPort of "${serverName}")`) : error),
    );
    server.listen(port ?? 0, '127.0.0.1', () => resolve());
  });
  const actualPort = (server.address() as AddressInfo).port;

  return {
    redirectUrl: `http://127.0.0.1:${actualPort}/callback`,
    code(signal) {
      return new Promise<string>((resolve, reject) => {
        const settle = (outcome: { code: string } | { error: string }) => {
          signal.removeEventListener('abort', onAbort);
          if ('code' in outcome) resolve(outcome.code);
          else reject(new McpSignInError(`the authorization server refused the sign-in to "${serverName}" (${outcome.error})`));
        };
        const onAbort = () => reject(new McpSignInError(`the sign-in to "${serverName}" was stopped before the browser came back`));
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        const early = pending.shift();
        if (early) settle(early);
        else deliver = settle;
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
