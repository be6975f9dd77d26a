/**
 * The command with `--session-store postgres://…`: a session started in one workspace and HOME is
 * resumed from another (two machines sharing only the database); a resume of a session open
 * elsewhere is refused; a run killed mid-tool is resumed elsewhere once its lease ran out, with
 * the cut-off tool call answered; an unreachable database fails at start.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createPgSessionStore, readSessionRecords } from '../../src/fleet/pgSessionStore.js';
import type { MessagesRequest } from '../../src/protocol/request.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { assertBuilt, CLI, makeSandbox, parseLines, removeSandboxes, runAgainst, runCli } from '../cli/helpers.js';
import { eventually } from '../eventually.js';
import { pgUnavailableReason, startPgCluster, type PgCluster } from './pgCluster.js';

const text = (t: string): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'text', text: t }] });
const resultOf = (stdout: string) => {
  const lines = parseLines(stdout);
  const result = lines[lines.length - 1]!;
  if (result.type !== 'result') throw new Error(`the last line is not the result: ${stdout}`);
  return result;
};

describe.skipIf(pgUnavailableReason !== undefined)('the command with a PostgreSQL session store', () => {
  let cluster: PgCluster;
  let url: string;
  beforeAll(async () => {
    assertBuilt();
    cluster = await startPgCluster();
    url = await cluster.createDatabase('cli');
  });
  afterAll(async () => {
    removeSandboxes();
    await cluster?.stop();
  });

  test('a session started on one machine is resumed on another (other HOME, other working directory)', async () => {
    const id = '7a1c1a52-4a55-4d55-9a1e-3b1f1b0c7e21';
    const first = await runAgainst([text('First answer.')], ['-p', 'first question', '--session-id', id, '--output-format', 'json', '--session-store', url], makeSandbox());
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    // The environment variable works as the flag does.
    const second = await runAgainst([text('Second answer.')], ['-p', 'second question', '--resume', id, '--output-format', 'json'], {
      ...makeSandbox(),
      env: { RXAGENT_SESSION_STORE: url },
    });
    expect(second.code).toBe(0);
    expect(resultOf(second.stdout)).toMatchObject({ session_id: id, result: 'Second answer.' });
    const messages = second.server.requests[0]!.body!.messages;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(messages)).toContain('first question');
    expect(JSON.stringify(messages)).toContain('First answer.');
    expect(second.server.requests.every((r) => r.validationErrors.length === 0)).toBe(true);
  });

  test('resuming a session another writer holds: one line on stderr, exit 1, nothing sent', async () => {
    const box = makeSandbox();
    const id = '7a1c1a52-4a55-4d55-9a1e-3b1f1b0c7e22';
    const holder = await createPgSessionStore({ url, workspace: box.cwd });
    const writer = await holder.open(id, { mode: 'create' });
    try {
      const run = await runAgainst([text('never')], ['-p', 'x', '--resume', id, '--session-store', url], box);
      expect(run.code).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(run.stderr).toMatch(/^rxagent: session 7a1c1a52-\S+ is already open for writing by \S+ pid \d+/);
      expect(run.server.requests).toHaveLength(0);
    } finally {
      await writer.close();
      await holder.end();
    }
  });

  test('an unreachable database at start: one line naming it (without the password), exit 1', async () => {
    const run = await runCli(['-p', 'x', '--session-store', `postgres://u:hunter22secret@127.0.0.1:${cluster.port + 1}/x`], { ...makeSandbox(), baseURL: 'http://127.0.0.1:9' });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain(`the session store postgres://u@127.0.0.1:${cluster.port + 1}/x is unavailable`);
    expect(run.stderr).not.toContain('hunter22secret');
  });

  test('SIGKILL mid-tool, then resume on another machine once the lease ran out: every stored tool_use has one result, the request is valid', async () => {
    const id = '7a1c1a52-4a55-4d55-9a1e-3b1f1b0c7e23';
    const boxA = makeSandbox();
    const marker = join(boxA.cwd, 'tool-started');
    const bash = (toolId: string, command: string): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'tool_use', id: toolId, name: 'Bash', input: { command } }] });
    const server = await startScriptedServer({ script: [bash('toolu_fast', 'echo fast'), bash('toolu_slow', `echo $$ > ${marker} && exec sleep 600`)] });
    const db = new pg.Client({ connectionString: url });
    await db.connect();
    let child: ReturnType<typeof spawn> | undefined;
    let toolPid: number | undefined;
    try {
      child = spawn(process.execPath, [CLI, '-p', 'run the slow thing', '--session-id', id, '--session-store', url, '--allowedTools', 'Bash', '--no-sandbox'], {
        cwd: boxA.cwd,
        env: { PATH: process.env['PATH'] ?? '', HOME: boxA.home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.baseURL, RXAGENT_SESSION_LEASE_MS: '1500' },
        stdio: 'ignore',
      });
      const started = child;
      const exited = new Promise((resolveExit) => started.once('exit', resolveExit));
      // The loop commits an iteration's records before the next request: once the second tool
      // runs, the first call and its result are stored. Now the machine dies.
      toolPid = await eventually(() => (existsSync(marker) ? Number(readFileSync(marker, 'utf8')) : 0), { timeoutMs: 60_000, what: 'the slow tool started' });
      const stored = await db.query<{ body: string }>(`SELECT body FROM rxagent.records WHERE session_id = $1 ORDER BY id`, [id]);
      expect(stored.rows.map((r) => r.body).join('\n')).toContain('toolu_fast');
      started.kill('SIGKILL');
      await exited;
      await eventually(async () => (await db.query(`SELECT 1 FROM rxagent.sessions WHERE session_id = $1 AND lease_expires_at < now()`, [id])).rowCount === 1, { timeoutMs: 60_000, what: 'the lease ran out' });

      const resumed = await runAgainst([text('Resumed.')], ['-p', 'go on', '--resume', id, '--output-format', 'json', '--session-store', url], makeSandbox());
      expect(resumed.code).toBe(0);
      expect(resultOf(resumed.stdout)).toMatchObject({ session_id: id, result: 'Resumed.' });
      const request = resumed.server.requests[0]!;
      expect(request.validationErrors).toEqual([]);
      const sent = JSON.stringify(request.body!.messages);
      expect(sent).toContain('run the slow thing');
      expect(sent).toContain('go on');
      for (const toolUseId of sent.match(/"id":"toolu_[a-z]+"/g) ?? []) {
        const idOnly = toolUseId.slice('"id":'.length);
        expect(sent.split(`"tool_use_id":${idOnly}`)).toHaveLength(2);
      }
      expect(sent.split('"tool_use_id":"toolu_fast"')).toHaveLength(2);
    } finally {
      // SIGKILL left the tool's process behind (nothing ran the command's exit handlers): end it.
      if (toolPid) process.kill(toolPid, 'SIGKILL');
      child?.kill('SIGKILL');
      await db.end();
      await server.close();
    }
  });

  test('subagent transcripts go to the database too: one session per child, out of the project list; no JSONL file on the machine', async () => {
    const parentId = '0b6f7d8e-51a3-4c2e-9f0a-6d2b8c1e4f70';
    const agents = JSON.stringify({ helper: { description: 'Helps', prompt: 'You are the HELPER.', tools: ['Read'] } });
    const script = (request: MessagesRequest): ScriptedResponse => {
      const system = typeof request.system === 'string' ? request.system : (request.system ?? []).map((b) => b.text).join('');
      if (system === 'You are the HELPER.') return text('CHILD ANSWER');
      if (request.messages.length === 1) return { kind: 'message', blocks: [{ type: 'tool_use', name: 'Agent', input: { description: 'help', prompt: 'Do the thing.', subagent_type: 'helper' } }] };
      return text('parent done');
    };
    const box = makeSandbox();
    const run = await runAgainst(script, ['-p', 'delegate it', '--session-id', parentId, '--agents', agents, '--session-store', url], box);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('parent done\n');
    const db = new pg.Pool({ connectionString: url, max: 1 });
    try {
      const { rows } = await db.query<{ session_id: string; workspace: string }>(`SELECT session_id, workspace FROM rxagent.sessions WHERE workspace LIKE $1`, [`%#subagents-of-${parentId}`]);
      expect(rows).toHaveLength(1);
      const [child] = rows;
      expect(child!.session_id).toMatch(/^agent-[0-9a-f]+$/);
      const { records } = await readSessionRecords(db, child!.session_id);
      const messages = records.filter((r) => r.type === 'user' || r.type === 'assistant').map((r) => JSON.stringify(r.type === 'user' || r.type === 'assistant' ? r.message.content : ''));
      expect(messages.join('\n')).toContain('Do the thing.');
      expect(messages.at(-1)).toContain('CHILD ANSWER');
      // The project's sessions are the parent only: --continue and the pickers never see the child.
      const store = await createPgSessionStore({ url, workspace: box.cwd });
      try {
        expect((await store.list()).map((s) => s.sessionId)).toEqual([parentId]);
      } finally {
        await store.end();
      }
    } finally {
      await db.end();
    }
    expect(existsSync(join(box.home, '.rxagent', 'projects'))).toBe(true);
    // No transcript file, the parent's or a child's (the stream-json line-uuid map is not a transcript).
    const files = readdirSync(join(box.home, '.rxagent', 'projects'), { recursive: true }).map(String);
    expect(files.filter((f) => f.endsWith('.jsonl') && !f.endsWith('stream-json-lines.jsonl'))).toEqual([]);
  });
});
