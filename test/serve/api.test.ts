/**
 * `rxagent serve`'s HTTP API through the real command: sessions, prompts, events as SSE with ids
 * and Last-Event-ID resumption, permission answers, interrupts, 4xx JSON for bad requests, the
 * loopback Host check and the token of a non-loopback host, a client leaving mid-run, and a
 * server stop that ends the running turn cleanly.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { DEFAULT_MODEL } from '../../src/context/modelTable.js';
import { assertBuilt, makeSandbox, removeSandboxes } from '../cli/helpers.js';
import { lastUserText } from '../agents/helpers.js';
import { gate, getJson, postJson, readEvents, startServe, type ServeProcess } from './helpers.js';

const held = gate();
let model: ScriptedServer;
let serve: ServeProcess;
let sandbox: { cwd: string; home: string };
/** The session list right after start, before any test adds one (so the order of tests does not matter). */
let atStart: { sessions: unknown[] };

/** The model's side, chosen by the prompt's words. */
function script(req: MessagesRequest): ScriptedResponse {
  const last = lastUserText(req);
  if (last.includes('hold')) return { kind: 'message', blocks: [{ type: 'text', text: 'First words', chunkSize: 3 }], endAfter: held.promise };
  if (last.includes('write via commands')) return { kind: 'message', blocks: [{ type: 'tool_use', name: 'Bash', input: { command: 'touch commanded.txt' } }] };
  if (last.includes('ask to write')) return { kind: 'message', blocks: [{ type: 'tool_use', name: 'Bash', input: { command: 'touch approved.txt' } }] };
  if (last.includes('sleep long')) return { kind: 'message', blocks: [{ type: 'tool_use', name: 'Bash', input: { command: 'sleep 300' } }] };
  return { kind: 'message', blocks: [{ type: 'text', text: `answer to: ${last.slice(0, 60)}` }] };
}

beforeAll(async () => {
  assertBuilt();
  sandbox = makeSandbox();
  model = await startScriptedServer({ script: (req) => script(req) });
  serve = await startServe(['--port', '0'], { ...sandbox, baseURL: model.baseURL });
  atStart = await getJson(`${serve.base}/api/sessions`);
});
afterAll(async () => {
  held.open();
  await serve?.stop();
  await model?.close();
  removeSandboxes();
});

const api = (path: string) => `${serve.base}${path}`;

describe('rxagent serve: API', () => {
  it('prints the page URL on loopback and has one session open at start', async () => {
    expect(serve.stdout()).toMatch(/http:\/\/127\.0\.0\.1:\d+\//);
    expect(atStart.sessions).toHaveLength(1);
    expect(atStart.sessions[0]).toMatchObject({ running: false, model: DEFAULT_MODEL });
  });

  it('creates a session with a prompt; its events come as SSE with increasing ids, the terminal last', async () => {
    const created = await postJson(api('/api/sessions'), { prompt: 'hello there' });
    expect(created.status).toBe(201);
    expect(created.json.prompt).toEqual({ status: 'started' });
    const id = created.json.session.sessionId as string;
    const events = await readEvents(api(`/api/sessions/${id}/events`), (e) => e.event.type === 'terminal');
    expect(events.map((e) => e.id)).toEqual(events.map((_, i) => i + 1));
    expect(events[0]!.event).toMatchObject({ type: 'user_message', reason: 'prompt' });
    expect(events.at(-1)!.event).toMatchObject({ type: 'terminal', reason: 'completed', lastAssistantText: 'answer to: hello there' });
    // Resuming after an id gives exactly the rest.
    const cut = 3;
    const rest = await readEvents(api(`/api/sessions/${id}/events`), (e) => e.event.type === 'terminal', cut);
    expect(rest.map((e) => e.id)).toEqual(events.slice(cut).map((e) => e.id));
    const sessions = (await getJson(api('/api/sessions'))).sessions as { sessionId: string; title: string }[];
    expect(sessions.find((s) => s.sessionId === id)?.title).toBe('hello there');
  });

  it('a client that leaves mid-run does not stop it; a reconnect with Last-Event-ID gets what it missed, then the live stream', async () => {
    const { json } = await postJson(api('/api/sessions'), { prompt: 'hold the end' });
    const id = json.session.sessionId as string;
    const eventsUrl = api(`/api/sessions/${id}/events`);
    const first = await readEvents(eventsUrl, (e) => e.event.type === 'model' && (e.event['event'] as { type: string }).type === 'text_delta');
    const lastSeen = first.at(-1)!.id;
    // The first client is gone (its connection closed); the run waits for the model, still running.
    expect((await getJson(api(`/api/sessions/${id}`))).session.running).toBe(true);
    const reading = readEvents(eventsUrl, (e) => e.event.type === 'terminal', lastSeen);
    held.open();
    const rest = await reading;
    expect(rest[0]!.id).toBe(lastSeen + 1);
    expect(rest.at(-1)!.event).toMatchObject({ type: 'terminal', reason: 'completed', lastAssistantText: 'First words' });
  });

  it('a permission question is an event; the HTTP answer lets the call run', async () => {
    const { json } = await postJson(api('/api/sessions'), { prompt: 'ask to write a file' });
    const id = json.session.sessionId as string;
    const eventsUrl = api(`/api/sessions/${id}/events`);
    const asked = await readEvents(eventsUrl, (e) => e.event.type === 'permission_request');
    const question = asked.at(-1)!.event;
    expect(question).toMatchObject({ toolName: 'Bash', input: { command: 'touch approved.txt' } });
    expect((await postJson(api(`/api/sessions/${id}/permissions/nope`), { behavior: 'allow' })).status).toBe(404);
    const answer = await postJson(api(`/api/sessions/${id}/permissions/${String(question['requestId'])}`), { behavior: 'allow' });
    expect(answer).toEqual({ status: 200, json: { answered: question['requestId'], behavior: 'allow' } });
    const rest = await readEvents(eventsUrl, (e) => e.event.type === 'terminal', asked.at(-1)!.id);
    expect(rest.map((e) => e.event.type)).toContain('permission_settled');
    const result = rest.find((e) => e.event.type === 'tool_result')!.event;
    expect(result).toMatchObject({ name: 'Bash', result: { content: '(no output, exit code 0)' } });
    expect((result['result'] as { is_error?: boolean }).is_error).not.toBe(true);
    expect(existsSync(join(sandbox.cwd, 'approved.txt'))).toBe(true);
  });

  it('malformed requests get 4xx JSON errors', async () => {
    const [session] = (await getJson(api('/api/sessions'))).sessions as { sessionId: string }[];
    const sid = session!.sessionId;
    const cases: Array<[string, RequestInit, number, string]> = [
      ['/api/sessions', { method: 'POST', body: '{"prompt":', headers: { 'content-type': 'application/json' } }, 400, 'invalid_json'],
      ['/api/sessions', { method: 'POST', body: '{"prompt":"x"}', headers: { 'content-type': 'text/plain' } }, 415, 'unsupported_media_type'],
      ['/api/sessions', { method: 'POST', body: '{"prompt":"  "}', headers: { 'content-type': 'application/json' } }, 400, 'invalid_request'],
      ['/api/sessions', { method: 'POST', body: '{"surprise":1}', headers: { 'content-type': 'application/json' } }, 400, 'invalid_request'],
      ['/api/sessions', { method: 'DELETE' }, 405, 'method_not_allowed'],
      [`/api/sessions/${sid}/prompt`, { method: 'POST', body: '{"text":5}', headers: { 'content-type': 'application/json' } }, 400, 'invalid_request'],
      [`/api/sessions/${sid}/permissions/p1`, { method: 'POST', body: '{"behavior":"maybe"}', headers: { 'content-type': 'application/json' } }, 400, 'invalid_request'],
      [`/api/sessions/${sid}/events`, { headers: { 'last-event-id': 'abc' } }, 400, 'invalid_request'],
      ['/api/sessions/not-a-session/prompt', { method: 'POST', body: '{"text":"x"}', headers: { 'content-type': 'application/json' } }, 404, 'not_found'],
      ['/api/nothing', {}, 404, 'not_found'],
      ['/nowhere', {}, 404, 'not_found'],
    ];
    for (const [path, init, status, type] of cases) {
      const res = await fetch(api(path), init);
      expect({ path, status: res.status, type: ((await res.json()) as any).error?.type }).toEqual({ path, status, type });
    }
    // Resuming a session that does not exist is the request's fault, said plainly.
    const resumed = await postJson(api('/api/sessions'), { resume: '00000000-0000-4000-8000-000000000000' });
    expect(resumed.status).toBe(400);
    expect(resumed.json.error.message).toMatch(/session/i);
  });

  it('refuses a request addressed to another host name (DNS rebinding)', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(api('/api/sessions'), { headers: { host: 'attacker.example:80' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(403);
  });

  it('interrupt stops a long tool; the turn ends aborted and the session takes the next prompt', async () => {
    const { json } = await postJson(api('/api/sessions'), { prompt: 'sleep long please' });
    const id = json.session.sessionId as string;
    const eventsUrl = api(`/api/sessions/${id}/events`);
    // `sleep` is read-only: it runs without a question.
    const started = await readEvents(eventsUrl, (e) => e.event.type === 'tool_start');
    expect((await postJson(api(`/api/sessions/${id}/interrupt`), {})).json).toEqual({ interrupted: true });
    const rest = await readEvents(eventsUrl, (e) => e.event.type === 'terminal', started.at(-1)!.id);
    expect(rest.at(-1)!.event['reason']).toMatch(/^aborted_/);
    expect((await postJson(api(`/api/sessions/${id}/interrupt`), {})).json).toEqual({ interrupted: false });
    const next = await postJson(api(`/api/sessions/${id}/prompt`), { text: 'and now?' });
    expect(next.json.prompt.status).toBe('started');
  });

  it('one commands route for all three: a prompt starts a turn, a permission answer lets the call run, Stop ends the next turn; bad commands are 4xx', async () => {
    const { json } = await postJson(api('/api/sessions'), {});
    const id = json.session.sessionId as string;
    const commands = api(`/api/sessions/${id}/commands`);
    const eventsUrl = api(`/api/sessions/${id}/events`);
    const prompted = await postJson(commands, { type: 'prompt', text: 'ask to write via commands' });
    expect(prompted.status).toBe(202);
    expect(prompted.json.outcome).toEqual({ type: 'prompt', status: 'started' });
    const asked = await readEvents(eventsUrl, (e) => e.event.type === 'permission_request');
    const requestId = String(asked.at(-1)!.event['requestId']);
    expect((await postJson(commands, { type: 'permission', requestId: 'nope', behavior: 'allow' })).status).toBe(404);
    expect((await postJson(commands, { type: 'permission', requestId, behavior: 'allow' })).json.outcome).toEqual({ type: 'permission', answered: true });
    const first = await readEvents(eventsUrl, (e) => e.event.type === 'terminal', asked.at(-1)!.id);
    expect(first.find((e) => e.event.type === 'permission_settled')?.event).toMatchObject({ requestId, behavior: 'allow' });
    expect(first.at(-1)!.event).toMatchObject({ reason: 'completed' });
    expect(existsSync(join(sandbox.cwd, 'commanded.txt'))).toBe(true);

    expect((await postJson(commands, { type: 'stop' })).json.outcome).toEqual({ type: 'stop', stopped: false });
    await postJson(commands, { type: 'prompt', text: 'sleep long via commands' });
    const started = await readEvents(eventsUrl, (e) => e.event.type === 'tool_start', first.at(-1)!.id);
    expect((await postJson(commands, { type: 'stop' })).json.outcome).toEqual({ type: 'stop', stopped: true });
    const stopped = await readEvents(eventsUrl, (e) => e.event.type === 'terminal', started.at(-1)!.id);
    expect(stopped.at(-1)!.event['reason']).toMatch(/^aborted_/);

    for (const bad of [{}, { type: 'launch' }, { type: 'prompt' }, { type: 'prompt', text: '  ' }, { type: 'stop', now: true }, { type: 'permission', requestId: 'x', behavior: 'maybe' }]) {
      const answer = await postJson(commands, bad);
      expect([answer.status, answer.json.error?.type]).toEqual([400, 'invalid_request']);
    }
  });
});

describe('rxagent serve: another host needs the token', () => {
  it('binds 127.0.0.2 only with a token in the URL, required on every request', async () => {
    const other = await startServe(['--host', '127.0.0.2', '--port', '0'], { ...sandbox, baseURL: model.baseURL });
    try {
      const url = new URL(other.url);
      const token = url.searchParams.get('token');
      expect(token).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      expect((await fetch(`${url.origin}/api/sessions`)).status).toBe(401);
      expect((await fetch(`${url.origin}/api/sessions?token=wrong${token}`)).status).toBe(401);
      expect((await fetch(`${url.origin}/`)).status).toBe(401);
      expect((await fetch(`${url.origin}/api/sessions?token=${token}`)).status).toBe(200);
      expect((await fetch(`${url.origin}/api/sessions`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      // The page carries the token on to its bundle.
      expect(await (await fetch(other.url)).text()).toContain(`/app.js?token=${token}`);
    } finally {
      await other.stop();
    }
  });
});

describe('rxagent serve: stopping', () => {
  it('SIGTERM during a long tool ends the turn with its terminal in the transcript and exits 0; a new server resumes it', async () => {
    const own = makeSandbox();
    const server = await startServe(['--port', '0', '--permission-mode', 'bypassPermissions'], { ...own, baseURL: model.baseURL });
    const { json } = await postJson(`${server.base}/api/sessions/${(await getJson(`${server.base}/api/sessions`)).sessions[0].sessionId}/prompt`, { text: 'sleep long now' });
    expect(json.prompt.status).toBe('started');
    const sid = json.session.sessionId as string;
    await readEvents(`${server.base}/api/sessions/${sid}/events`, (e) => e.event.type === 'tool_start');
    expect(await server.stop()).toBe(0);
    expect(server.stdout()).toContain('stopped');
    const projects = join(own.home, '.rxagent', 'projects');
    const [slug] = readdirSync(projects);
    const transcript = readFileSync(join(projects, slug!, `${sid}.jsonl`), 'utf8');
    // The interrupted call got its one result in the history.
    expect(transcript).toContain('"tool_result"');
    // A new server resumes the stored session: its earlier conversation comes first.
    const again = await startServe(['--port', '0'], { ...own, baseURL: model.baseURL });
    try {
      const back = await postJson(`${again.base}/api/sessions`, { resume: sid });
      expect(back.status).toBe(201);
      expect(back.json.session.sessionId).toBe(sid);
      const [first] = await readEvents(`${again.base}/api/sessions/${sid}/events`, () => true);
      expect(first!.event.type).toBe('history');
      expect(JSON.stringify(first!.event['messages'])).toContain('sleep long now');
    } finally {
      await again.stop();
    }
  });
});
