/**
 * The remaining control requests of the SDK's `SDKControlRequestInner`, through the real SDK and
 * a raw stream-json host: `get_settings` answers each settings source as written (read again per
 * call) and their merge; `rewind_files` without `enableFileCheckpointing` gives the SDK's typed
 * "cannot rewind" answer (rewindFiles.test.ts has the checkpoints); `list_models` and
 * `set_has_subscribers` succeed; the requests that have nothing to act on here (titles,
 * colours, plugins, skills, output styles, @-mentions, new roots) get an error answer that names the request and says why, and the session goes on.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Query, ResolvedSettings, RewindFilesResult } from '@anthropic-ai/claude-agent-sdk';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { makeSandbox } from '../cli/helpers.js';
import { isResult, responseTo, startStreamHost, userLine } from '../cli/streamHost.js';
import { assertBuilt, promptsAfterResults, removeSandboxes, resultOf, runQuery } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const answer = (text: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }] });

/** getSettings() is on the SDK's Query object at run time, not in its public type. */
type WithGetSettings = Query & { getSettings(): Promise<ResolvedSettings> };

test('getSettings() answers every source as written, their merge and who set each key, read again per call; rewindFiles() without checkpointing says it cannot', async () => {
  const sandbox = makeSandbox();
  mkdirSync(join(sandbox.cwd, '.claude'), { recursive: true });
  const project = join(sandbox.cwd, '.claude', 'settings.json');
  writeFileSync(project, JSON.stringify({ permissions: { allow: ['Read'] }, env: { FROM: 'project' } }));
  const prompts = promptsAfterResults(['one?', 'two?']);
  const seen: { first?: ResolvedSettings; second?: ResolvedSettings; rewind?: RewindFilesResult } = {};
  const { messages } = await runQuery([answer('one'), answer('two')], prompts.input, { settings: { permissions: { allow: ['Glob'] }, model: 'claude-sonnet-4-5' } }, {
    sandbox,
    onMessage: async (m, q) => {
      if (m.type !== 'result') return;
      if (!seen.first) {
        seen.first = await (q as WithGetSettings).getSettings();
        writeFileSync(project, JSON.stringify({ permissions: { allow: ['Read', 'Grep'] } }));
        seen.second = await (q as WithGetSettings).getSettings();
        seen.rewind = await q.rewindFiles('not-a-checkpoint');
      }
      prompts.resultSeen();
    },
  });
  expect(resultOf(messages).map((r) => r.subtype)).toEqual(['success', 'success']);
  expect(seen.first?.sources).toEqual([
    { source: 'project', path: project, settings: { permissions: { allow: ['Read'] }, env: { FROM: 'project' } } },
    { source: 'flag', settings: { permissions: { allow: ['Glob'] }, model: 'claude-sonnet-4-5' } },
  ]);
  expect(seen.first?.effective).toEqual({ permissions: { allow: ['Read', 'Glob'] }, env: { FROM: 'project' }, model: 'claude-sonnet-4-5' });
  expect(seen.first?.provenance).toEqual({ permissions: { source: 'flag' }, env: { source: 'project', path: project }, model: { source: 'flag' } });
  expect(seen.second?.effective).toMatchObject({ permissions: { allow: ['Read', 'Grep', 'Glob'] } });
  expect(seen.second?.effective).not.toHaveProperty('env');
  // Without enableFileCheckpointing nothing was kept: the typed answer says so.
  expect(seen.rewind).toEqual({ canRewind: false, error: expect.stringMatching(/checkpointing is off/) });
}, 120_000);

test('list_models, get_binary_version and set_has_subscribers succeed; the requests with nothing to act on answer why, and the session goes on', async () => {
  const server = await startScriptedServer({ script: [answer('still here')] });
  const host = startStreamHost(['--model', 'claude-haiku-4-5'], { ...makeSandbox(), baseURL: server.baseURL });
  try {
    const inapplicable = {
      rename_session: { title: 'A title' },
      set_color: { color: 'blue' },
      file_suggestions: { query: 'src/' },
      register_repo_root: { directory: 'sub' },
      reload_plugins: {},
      reload_skills: {},
      reload_output_styles: {},
    };
    host.send({ type: 'control_request', request_id: 'models', request: { subtype: 'list_models' } });
    host.send({ type: 'control_request', request_id: 'version', request: { subtype: 'get_binary_version' } });
    host.send({ type: 'control_request', request_id: 'watch', request: { subtype: 'set_has_subscribers', has_subscribers: false } });
    host.send({ type: 'control_request', request_id: 'watch-bad', request: { subtype: 'set_has_subscribers', has_subscribers: 'no' } });
    for (const [subtype, fields] of Object.entries(inapplicable)) host.send({ type: 'control_request', request_id: subtype, request: { subtype, ...fields } });
    expect((await host.waitFor(responseTo('models'), 'list_models'))['response']).toMatchObject({ subtype: 'success', response: { models: [expect.objectContaining({ value: 'claude-haiku-4-5' })] } });
    expect((await host.waitFor(responseTo('version'), 'get_binary_version'))['response']).toMatchObject({ subtype: 'success', response: { version: expect.stringMatching(/^\d+\.\d+\.\d+/) } });
    expect((await host.waitFor(responseTo('watch'), 'set_has_subscribers'))['response']).toEqual({ subtype: 'success', request_id: 'watch', response: {} });
    expect((await host.waitFor(responseTo('watch-bad'), 'a bad set_has_subscribers'))['response']).toMatchObject({ subtype: 'error', error: expect.stringContaining('boolean or null') });
    for (const subtype of Object.keys(inapplicable)) {
      const response = (await host.waitFor(responseTo(subtype), subtype))['response'] as Record<string, unknown>;
      expect(response).toMatchObject({ subtype: 'error', error: expect.stringMatching(new RegExp(`^${subtype}: not (applicable to|supported by) rxagent: .{20,}`)) });
    }
    host.send(userLine('are you there?'));
    expect(await host.waitFor(isResult, 'the result')).toMatchObject({ subtype: 'success', result: 'still here' });
    host.end();
    expect((await host.done).code).toBe(0);
  } finally {
    await server.close();
  }
}, 60_000);
