/**
 * `enableFileCheckpointing` and `Query.rewindFiles()` through the real SDK: each user message
 * opens a checkpoint, Write and Edit keep a file's bytes before their first change after it,
 * and a rewind to a message puts every file changed since back (a file created since is
 * deleted); `dryRun` only reports; an unknown message id is the typed canRewind: false.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { Query, RewindFilesResult, SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { makeSandbox } from '../cli/helpers.js';
import { assertBuilt, removeSandboxes, resultOf, runQuery } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const answer = (text: string) => ({ kind: 'message' as const, blocks: [{ type: 'text' as const, text }] });
const call = (name: string, input: Record<string, unknown>) => ({ kind: 'message' as const, blocks: [{ type: 'tool_use' as const, name, input }] });

test('rewindFiles() puts the files changed since a message back as they were; dryRun only reports', async () => {
  const sandbox = makeSandbox({ 'a.txt': 'one\n' });
  const a = join(realpathSync(sandbox.cwd), 'a.txt');
  const b = join(realpathSync(sandbox.cwd), 'b.txt');
  const first = randomUUID();
  const second = randomUUID();
  let resultSeen!: () => void;
  const nextResult = () => new Promise<void>((resolve) => (resultSeen = resolve));
  const seen: Record<string, RewindFilesResult | string | boolean> = {};
  let queryRef: Query | undefined;
  const message = (text: string, uuid: string): SDKUserMessage => ({ type: 'user', message: { role: 'user', content: text }, parent_tool_use_id: null, uuid: uuid as NonNullable<SDKUserMessage['uuid']> });
  const input = (async function* (): AsyncGenerator<SDKUserMessage> {
    let turn = nextResult();
    yield message('change a, create b', first);
    await turn;
    turn = nextResult();
    yield message('change a again', second);
    await turn;
    const q = queryRef!;
    seen['dry'] = await q.rewindFiles(second, { dryRun: true });
    seen['afterDry'] = readFileSync(a, 'utf8');
    seen['second'] = await q.rewindFiles(second);
    seen['afterSecond'] = readFileSync(a, 'utf8');
    seen['first'] = await q.rewindFiles(first);
    seen['afterFirst'] = readFileSync(a, 'utf8');
    seen['bExists'] = existsSync(b);
    seen['unknown'] = await q.rewindFiles(randomUUID());
  })();
  const { messages } = await runQuery(
    [
      call('Read', { file_path: 'a.txt' }),
      call('Edit', { file_path: 'a.txt', old_string: 'one', new_string: 'two' }),
      call('Write', { file_path: 'b.txt', content: 'new\nfile\n' }),
      answer('changed'),
      call('Edit', { file_path: 'a.txt', old_string: 'two', new_string: 'three' }),
      answer('changed again'),
    ],
    input,
    { enableFileCheckpointing: true, permissionMode: 'acceptEdits' },
    { sandbox, withQuery: (q) => (queryRef = q), onMessage: (m) => void (m.type === 'result' && resultSeen()) },
  );
  expect(resultOf(messages).map((r) => r.subtype)).toEqual(['success', 'success']);
  expect(seen['dry']).toEqual({ canRewind: true, filesChanged: [a], insertions: 1, deletions: 1 });
  expect(seen['afterDry']).toBe('three\n');
  expect(seen['second']).toEqual({ canRewind: true, filesChanged: [a], insertions: 1, deletions: 1 });
  expect(seen['afterSecond']).toBe('two\n');
  // Back before the first message: a as it was, b (created since) gone.
  expect(seen['first']).toEqual({ canRewind: true, filesChanged: [a, b], insertions: 1, deletions: 3 });
  expect(seen['afterFirst']).toBe('one\n');
  expect(seen['bExists']).toBe(false);
  expect(seen['unknown']).toEqual({ canRewind: false, error: expect.stringContaining('no checkpoint') });
}, 120_000);
