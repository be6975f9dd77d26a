import type { ElicitedValue } from '../../mcp/elicitation.js';

/** The server's API as the page uses it; the token of the page's URL (if any) rides on every call. */
const token = new URLSearchParams(location.search).get('token');

export function withToken(path: string, extra: Record<string, string> = {}): string {
  const params = new URLSearchParams(extra);
  if (token) params.set('token', token);
  const query = params.toString();
  return query === '' ? path : `${path}?${query}`;
}

export interface SessionInfo {
  readonly sessionId: string;
  readonly model: string;
  readonly cwd: string;
  readonly running: boolean;
  /** The first prompt ('' before one). */
  readonly title: string;
}

export interface SessionList {
  readonly sessions: readonly SessionInfo[];
  /** Transcripts of this project on disk, resumable. */
  readonly stored: readonly { readonly sessionId: string; readonly modifiedAt: string }[];
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: unknown): Promise<T> {
  const res = await fetch(withToken(path), {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const data = (await res.json()) as T & { error?: { message: string } };
  if (!res.ok) throw new Error(data.error?.message ?? `${method} ${path}: HTTP ${res.status}`);
  return data;
}

/** The commands route's body (rxagent/ui's `UiCommand`, with a prompt's text as `text`). */
export type PageCommand =
  | { readonly type: 'prompt'; readonly text: string }
  | { readonly type: 'permission'; readonly requestId: string; readonly behavior: 'allow' | 'deny' }
  | { readonly type: 'elicitation'; readonly requestId: string; readonly action: 'accept' | 'decline' | 'cancel'; readonly content?: Readonly<Record<string, ElicitedValue>> }
  | { readonly type: 'stop' };

const sessionPath = (id: string) => `/api/sessions/${encodeURIComponent(id)}`;

export const api = {
  listSessions: () => call<SessionList>('GET', '/api/sessions'),
  getSession: (id: string) => call<{ session: SessionInfo }>('GET', sessionPath(id)),
  createSession: () => call<{ session: SessionInfo }>('POST', '/api/sessions', {}),
  resumeSession: (id: string) => call<{ session: SessionInfo }>('POST', '/api/sessions', { resume: id }),
  /** One UI command (prompt, permission answer, Stop): the page sends all three this way. */
  command: (id: string, command: PageCommand) => call<unknown>('POST', `${sessionPath(id)}/commands`, command),
  eventsUrl: (id: string) => withToken(`${sessionPath(id)}/events`),
};
