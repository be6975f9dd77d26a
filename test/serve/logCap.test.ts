/**
 * The per-session event log cap through the real command (`RXAGENT_SERVE_MAX_EVENTS`): a long
 * streamed answer overflows a small log, yet a tab that opens after the turn, and one that
 * resumes from an id the log has folded away, both fold the whole conversation (the first event
 * they get is the snapshot). A bad cap stops the server at start with a clear message.
 */
import { spawnSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import { emptyView, reduceView } from '../../src/ui/reduceView.js';
import { lastAnswer } from '../../src/ui/selectors.js';
import type { AgentView, ViewEvent } from '../../src/ui/types.js';
import { assertBuilt, CLI, makeSandbox, removeSandboxes } from '../cli/helpers.js';
import { transcript } from '../ui/helpers.js';
import { postJson, readEvents, startServe, type ServeProcess, type SseEvent } from './helpers.js';

const ANSWER = 'This answer streams in many small pieces so that the log overflows its cap.';
let model: ScriptedServer;
let serve: ServeProcess;
let sandbox: { cwd: string; home: string };

beforeAll(async () => {
  assertBuilt();
  sandbox = makeSandbox();
  model = await startScriptedServer({ script: () => ({ kind: 'message', blocks: [{ type: 'text', text: ANSWER, chunkSize: 3 }] }) });
  serve = await startServe(['--port', '0'], { ...sandbox, baseURL: model.baseURL, env: { RXAGENT_SERVE_MAX_EVENTS: '8' } });
});
afterAll(async () => {
  await serve?.stop();
  await model?.close();
  removeSandboxes();
});

const fold = (events: readonly SseEvent[], start: AgentView = emptyView()): AgentView =>
  events.reduce((view, e) => reduceView(view, e.event as ViewEvent, e.at), start);
const isTerminal = (e: SseEvent) => e.event.type === 'terminal';

describe('rxagent serve: the capped event log', () => {
  it('a tab opened after an overflowing turn starts from the snapshot and shows the whole answer', async () => {
    const { json } = await postJson(`${serve.base}/api/sessions`, { prompt: 'stream a long answer' });
    const url = `${serve.base}/api/sessions/${json.session.sessionId as string}/events`;
    // A first tab reads the turn to its end (the ids tell how many events there were).
    const live = await readEvents(url, isTerminal);
    const lastId = live.at(-1)!.id;
    expect(lastId).toBeGreaterThan(20);
    // A tab opened now: the snapshot, then at most the cap's worth of events.
    const late = await readEvents(url, isTerminal);
    expect(late[0]!.event.type).toBe('view_snapshot');
    expect(late.length).toBeLessThanOrEqual(9);
    expect(late.at(-1)!.id).toBe(lastId);
    const view = fold(late);
    expect(lastAnswer(view)).toBe(ANSWER);
    expect(transcript(view)).toEqual(['user: stream a long answer', `assistant: ${ANSWER}`]);
    expect(view.terminal?.reason).toBe('completed');
  });

  it('a tab resuming from a folded-away id gets the snapshot and ends with the same view', async () => {
    const { json } = await postJson(`${serve.base}/api/sessions`, { prompt: 'stream it again' });
    const url = `${serve.base}/api/sessions/${json.session.sessionId as string}/events`;
    const all = await readEvents(url, isTerminal);
    // This tab saw the first 5 events, then went away while the turn ran on.
    const seen = all.filter((e) => e.id <= 5);
    const rest = await readEvents(url, isTerminal, 5);
    expect(rest[0]!.event.type).toBe('view_snapshot');
    const resumed = fold(rest, fold(seen));
    expect(lastAnswer(resumed)).toBe(ANSWER);
    expect(transcript(resumed)).toEqual(['user: stream it again', `assistant: ${ANSWER}`]);
  });
});

it('a cap that is not a whole number >= 2 stops the server at start, saying why', () => {
  const result = spawnSync(process.execPath, [CLI, 'serve', '--port', '0'], {
    cwd: sandbox.cwd,
    env: { PATH: process.env['PATH'] ?? '', HOME: sandbox.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: model.baseURL, RXAGENT_SERVE_MAX_EVENTS: 'lots' },
    encoding: 'utf8',
    timeout: 60_000,
  });
  expect(result.status).not.toBe(0);
  expect(result.stderr).toContain("RXAGENT_SERVE_MAX_EVENTS must be a whole number >= 2, got 'lots'");
});
