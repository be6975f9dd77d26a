/**
 * The HTTP API (all JSON; errors are `{ "error": { "type", "message" } }` with a 4xx status):
 *
 *   GET  /api/sessions                          live sessions (newest first) and stored ones
 *   POST /api/sessions            {prompt?, resume?}  a new session (or a stored one resumed), 201
 *   GET  /api/sessions/:id                      one live session
 *   POST /api/sessions/:id/prompt {text}        submit a prompt, 202
 *   POST /api/sessions/:id/permissions/:req {behavior: "allow"|"deny", message?}
 *   POST /api/sessions/:id/interrupt            stop the running turn
 *   POST /api/sessions/:id/commands {type: "prompt", text} | {type: "permission", requestId, behavior, message?}
 *                                   | {type: "elicitation", requestId, action: "accept"|"decline"|"cancel", content?} | {type: "stop"}
 *                                               the same three as one UI command stream (what the page sends)
 *   GET  /api/sessions/:id/events               Server-Sent Events, resumable (Last-Event-ID)
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { z } from 'zod';
import type { SessionHub } from './hub.js';
import { HttpError, readJson, sendJson } from './http.js';
import type { ServeSession } from './session.js';
import type { UiCommand } from '../ui/commands.js';
import { resumeIdOf, streamEvents } from './sse.js';

export interface StoredSession {
  readonly sessionId: string;
  readonly modifiedAt: string;
}

export interface ApiContext {
  readonly hub: SessionHub;
  readonly listStored: () => Promise<readonly StoredSession[]>;
  /** Registers an open event stream so stopping the server can end it; returns the unregister function. */
  readonly trackStream: (end: () => void) => () => void;
}

const promptText = z.string().refine((t) => t.trim() !== '', 'must not be empty').refine((t) => t.length <= 200_000, 'is longer than 200000 characters');
const createBody = z.strictObject({ prompt: promptText.optional(), resume: z.string().min(1).optional() });
const promptBody = z.strictObject({ text: promptText });
const answerBody = z.strictObject({ behavior: z.enum(['allow', 'deny']), message: z.string().optional() });
const emptyBody = z.strictObject({});
const commandBody = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('prompt'), text: promptText }),
  z.strictObject({ type: z.literal('permission'), requestId: z.string().min(1), behavior: z.enum(['allow', 'deny']), message: z.string().optional() }),
  z.strictObject({
    type: z.literal('elicitation'),
    requestId: z.string().min(1),
    action: z.enum(['accept', 'decline', 'cancel']),
    // Flat values only, as form elicitation allows (the MCP client checks them against the server's schema).
    content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
  }),
  z.strictObject({ type: z.literal('stop') }),
]);

const notWaiting = (requestId: string) => new HttpError(404, 'not_found', `no permission request '${requestId}' is waiting (answered, cancelled, or unknown)`);

/** A command body as the UI command it names. */
function uiCommandOf(body: z.infer<typeof commandBody>): UiCommand {
  switch (body.type) {
    case 'prompt':
      return { type: 'prompt', input: body.text };
    case 'permission':
      return body.behavior === 'allow'
        ? { type: 'permission', requestId: body.requestId, behavior: 'allow' }
        : { type: 'permission', requestId: body.requestId, behavior: 'deny', ...(body.message ? { message: body.message } : {}) };
    case 'elicitation':
      return { type: 'elicitation', requestId: body.requestId, action: body.action, ...(body.action === 'accept' ? { content: body.content ?? {} } : {}) };
    case 'stop':
      return { type: 'stop' };
  }
}

function sessionOr404(hub: SessionHub, id: string): ServeSession {
  const session = hub.get(id);
  if (!session) throw new HttpError(404, 'not_found', `no live session '${id}' (list them with GET /api/sessions; resume a stored one with POST /api/sessions {"resume": id})`);
  return session;
}

const methodNotAllowed = (method: string, path: string) => new HttpError(405, 'method_not_allowed', `${method} is not allowed on ${path}`);

/** Handles `/api/...`; throws HttpError for anything it refuses. */
export async function handleApi(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
  const method = req.method ?? 'GET';
  const parts = url.pathname.split('/').filter((p) => p !== '').map(decodeURIComponent);
  // parts[0] === 'api'
  if (parts[1] !== 'sessions') throw new HttpError(404, 'not_found', `no API route ${url.pathname}`);
  const [, , id, action, requestId, extra] = parts;

  if (id === undefined) {
    if (method === 'GET') {
      const stored = await ctx.listStored();
      return sendJson(res, 200, { sessions: ctx.hub.list().map((s) => s.info()), stored });
    }
    if (method === 'POST') {
      const body = await readJson(req, createBody);
      const session = await ctx.hub.create(body.resume);
      const started = body.prompt === undefined ? undefined : session.prompt(body.prompt);
      return sendJson(res, 201, { session: session.info(), ...(started ? { prompt: started } : {}) });
    }
    throw methodNotAllowed(method, url.pathname);
  }

  const session = sessionOr404(ctx.hub, id);
  if (action === undefined) {
    if (method !== 'GET') throw methodNotAllowed(method, url.pathname);
    return sendJson(res, 200, { session: session.info() });
  }
  if (action === 'events' && requestId === undefined) {
    if (method !== 'GET') throw methodNotAllowed(method, url.pathname);
    return streamEvents(req, res, session, resumeIdOf(req, url.searchParams), ctx.trackStream);
  }
  if (method !== 'POST') throw methodNotAllowed(method, url.pathname);
  if (action === 'prompt' && requestId === undefined) {
    const body = await readJson(req, promptBody);
    return sendJson(res, 202, { prompt: session.prompt(body.text), session: session.info() });
  }
  if (action === 'interrupt' && requestId === undefined) {
    await readJson(req, emptyBody);
    return sendJson(res, 200, { interrupted: session.interrupt() });
  }
  if (action === 'permissions' && requestId !== undefined && extra === undefined) {
    const body = await readJson(req, answerBody);
    const answer = body.behavior === 'allow' ? { behavior: 'allow' as const } : { behavior: 'deny' as const, ...(body.message ? { message: body.message } : {}) };
    if (!session.answer(requestId, answer)) throw notWaiting(requestId);
    return sendJson(res, 200, { answered: requestId, behavior: body.behavior });
  }
  if (action === 'commands' && requestId === undefined) {
    const command = uiCommandOf(await readJson(req, commandBody));
    const outcome = session.command(command);
    if (outcome.type === 'permission' && !outcome.answered && command.type === 'permission') throw notWaiting(command.requestId);
    if (outcome.type === 'elicitation' && !outcome.answered && command.type === 'elicitation') throw new HttpError(404, 'not_found', `no MCP server question '${command.requestId}' is waiting (answered, withdrawn, or unknown)`);
    return sendJson(res, outcome.type === 'prompt' ? 202 : 200, { outcome, session: session.info() });
  }
  throw new HttpError(404, 'not_found', `no API route ${url.pathname}`);
}
