/**
 * Who may talk to the server. On a loopback address only this machine can connect, and the Host
 * header must name a loopback host too (a web page that rebinds its own name to 127.0.0.1 cannot
 * pass). On any other address every request must carry the token printed in the URL
 * (`?token=` or `Authorization: Bearer`), compared in constant time.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { HttpError } from './http.js';

export interface AccessPolicy {
  /** The token every request needs, or undefined on loopback. */
  readonly token: string | undefined;
  check(req: IncomingMessage, query: URLSearchParams): void;
}

export function newToken(): string {
  return randomBytes(24).toString('base64url');
}

const LOOPBACK_HOST_HEADER = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?$/i;

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function createAccessPolicy(token: string | undefined): AccessPolicy {
  return {
    token,
    check(req, query) {
      if (token === undefined) {
        if (!LOOPBACK_HOST_HEADER.test(req.headers.host ?? '')) throw new HttpError(403, 'forbidden', 'this server answers only requests addressed to a loopback host');
        return;
      }
      const header = req.headers.authorization;
      const given = query.get('token') ?? (header?.startsWith('Bearer ') ? header.slice(7) : undefined);
      if (given === undefined || !sameSecret(given, token)) throw new HttpError(401, 'unauthorized', 'a valid token is required (the one in the URL the server printed)');
    },
  };
}
