/**
 * The host's file and queue requests through the real SDK and a raw stream-json host:
 * `readFile` reads what Read may read (inside the workspace, no Read deny rule, capped, UTF-8 or
 * base64) and answers null otherwise; `seedReadState` lets an Edit through without a Read when
 * the file still has the seeded mtime, and not when it changed; `cancel_async_message` drops a
 * queued user message, which then never runs.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { Query, SDKControlReadFileResponse, SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { makeSandbox } from '../cli/helpers.js';
import { isResult, responseTo, startStreamHost, userLine } from '../cli/streamHost.js';
import { assertBuilt, removeSandboxes, resultOf, resultsById, runQuery, userMessage } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const answer = (text: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }] });
const edit = (id: string) => ({ kind: 'message' as const, blocks: [{ type: 'tool_use' as const, id, name: 'Edit', input: { file_path: 'notes.txt', old_string: 'hello', new_string: 'hi' } }] });

test('readFile follows the Read rules; seedReadState lets Edit through only while the mtime still holds', async () => {
  const sandbox = makeSandbox({ 'notes.txt': 'hello\n', 'secret.txt': 'top secret\n' });
  const notes = join(sandbox.cwd, 'notes.txt');
  const mtime = Math.floor(statSync(notes).mtimeMs);
  let resolveQuery!: (q: Query) => void;
  const queryReady = new Promise<Query>((resolve) => (resolveQuery = resolve));
  let resultSeen!: () => void;
  const nextResult = () => new Promise<void>((resolve) => (resultSeen = resolve));
  const reads: Record<string, SDKControlReadFileResponse | null> = {};
  const input = (async function* (): AsyncGenerator<SDKUserMessage> {
    const q = await queryReady;
    reads['notes'] = await q.readFile('notes.txt');
    reads['capped'] = await q.readFile('notes.txt', { maxBytes: 2, encoding: 'base64' });
    reads['denied'] = await q.readFile('secret.txt');
    reads['outside'] = await q.readFile('/etc/hostname');
    reads['missing'] = await q.readFile('nope.txt');
    await q.seedReadState(notes, mtime - 5000);
    let turn = nextResult();
    yield userMessage('edit with a stale seed');
    await turn;
    await q.seedReadState(notes, mtime);
    turn = nextResult();
    yield userMessage('edit with a good seed');
    await turn;
  })();
  const { messages } = await runQuery([edit('tu_stale'), answer('refused'), edit('tu_good'), answer('edited')], input, { permissionMode: 'acceptEdits', disallowedTools: ['Read(./secret.txt)'] }, {
    sandbox,
    withQuery: resolveQuery,
    onMessage: (m) => void (m.type === 'result' && resultSeen()),
  });
  expect(resultOf(messages).map((r) => r.subtype)).toEqual(['success', 'success']);
  expect(reads['notes']).toEqual({ contents: 'hello\n', absPath: notes, lossy: false });
  expect(reads['capped']).toEqual({ contents: Buffer.from('he').toString('base64'), absPath: notes, encoding: 'base64', truncated: true });
  expect(reads['denied']).toBeNull();
  expect(reads['outside']).toBeNull();
  expect(reads['missing']).toBeNull();
  const results = resultsById(messages);
  expect(JSON.stringify(results.get('tu_stale')?.message.content)).toMatch(/has not been read/);
  expect(JSON.stringify(results.get('tu_good')?.message.content)).not.toMatch(/Refusing/);
}, 120_000);

test('cancel_async_message drops a queued user message: it never runs; an unknown or running one is not cancelled', async () => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const server = await startScriptedServer({ script: [{ kind: 'message', blocks: [{ type: 'text', text: 'first' }], endAfter: held }, answer('never')] });
  const host = startStreamHost([], { ...makeSandbox(), baseURL: server.baseURL });
  try {
    host.send(userLine('first', 'u-first'));
    // A /cost waits for the running turn, so the message after it is queued, not joined to the turn.
    host.send(userLine('/cost', 'u-cost'));
    host.send(userLine('queued', 'u-queued'));
    host.send({ type: 'control_request', request_id: 'c-1', request: { subtype: 'cancel_async_message', message_uuid: 'u-queued' } });
    host.send({ type: 'control_request', request_id: 'c-2', request: { subtype: 'cancel_async_message', message_uuid: 'u-first' } });
    expect((await host.waitFor(responseTo('c-1'), 'the first cancel'))['response']).toMatchObject({ subtype: 'success', response: { cancelled: true } });
    expect((await host.waitFor(responseTo('c-2'), 'the second cancel'))['response']).toMatchObject({ subtype: 'success', response: { cancelled: false } });
    release();
    await host.waitFor((l) => isResult(l) && String(l['result']).includes('Total cost'), 'the /cost result');
    host.end();
    expect((await host.done).code).toBe(0);
    expect(host.lines.filter(isResult)).toHaveLength(2);
    expect(server.requests).toHaveLength(1);
  } finally {
    release();
    host.end();
    await server.close();
  }
}, 60_000);
