/**
 * MCP through the BUILT command, as Claude Code's users configure it: `--mcp-config` (inline and
 * file), `--strict-mcp-config`, `.mcp.json` with project approval, permission rules, the init
 * line's `mcp_servers`, and no server process left behind when the command exits.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutputLine } from '../../src/cli/outputSchemas.js';
import type { Script } from '../../src/testing/script.js';
import { assertBuilt, makeSandbox, parseLines, removeSandboxes, runAgainst } from '../cli/helpers.js';
import { everythingStdio, FIXTURE_SERVER, isAlive } from './servers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const fixtureLog = () => join(mkdtempSync(join(tmpdir(), 'rxagent-mcp-cli-')), 'log');
const fixture = (log: string) => ({ command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_LOG: log } });
const config = (servers: Record<string, unknown>) => JSON.stringify({ mcpServers: servers });
const readLog = (log: string) => (existsSync(log) ? readFileSync(log, 'utf8') : '');

const callThenAnswer = (name: string, input: Record<string, unknown>): Script => [
  { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_mcp', name, input }] },
  { kind: 'message', blocks: [{ type: 'text', text: 'finished' }] },
];

function initOf(lines: readonly OutputLine[]) {
  const init = lines[0];
  if (init?.type !== 'system' || init.subtype !== 'init') throw new Error('the first line is not system/init');
  return init;
}

function toolResultOf(lines: readonly OutputLine[]): { content: unknown; is_error?: boolean } {
  for (const line of lines) {
    if (line.type !== 'user') continue;
    const content = line.message.content;
    if (!Array.isArray(content)) continue;
    const result = content.find((b) => b.type === 'tool_result');
    if (result && result.type === 'tool_result') return result as { content: unknown; is_error?: boolean };
  }
  throw new Error('no tool_result line');
}

const streamJson = ['--output-format', 'stream-json', '--verbose'];

describe('--mcp-config', () => {
  it('inline JSON: the server tools are offered, an allowed call runs, init lists the server connected, the process is gone after exit', async () => {
    const log = fixtureLog();
    const box = makeSandbox();
    const run = await runAgainst(
      callThenAnswer('mcp__fixture__echo', { text: 'through the command' }),
      ['-p', 'go', ...streamJson, '--mcp-config', config({ fixture: fixture(log) }), '--allowedTools', 'mcp__fixture'],
      box,
    );
    expect(run.code).toBe(0);
    const lines = parseLines(run.stdout);
    const init = initOf(lines);
    expect(init.mcp_servers).toEqual([{ name: 'fixture', status: 'connected' }]);
    expect(init.tools).toContain('mcp__fixture__echo');
    expect(run.server.requests[0]!.body!.tools!.map((t) => t.name)).toContain('mcp__fixture__echo');
    expect(toolResultOf(lines)).toMatchObject({ content: 'through the command' });
    const pid = Number(/pid (\d+)/.exec(readLog(log))![1]);
    expect(isAlive(pid)).toBe(false);
  });

  it('a file argument and a failing server: listed failed, a warning on stderr, the run goes on', async () => {
    const box = makeSandbox({ 'mcp.json': config({ everything: everythingStdio(), broken: { command: '/nonexistent/mcp' } }) });
    const run = await runAgainst([{ kind: 'message', blocks: [{ type: 'text', text: 'ok' }] }], ['-p', 'go', ...streamJson, '--mcp-config', 'mcp.json'], box);
    expect(run.code).toBe(0);
    expect(initOf(parseLines(run.stdout)).mcp_servers).toEqual([
      { name: 'everything', status: 'connected' },
      { name: 'broken', status: 'failed' },
    ]);
    expect(run.stderr).toContain('MCP server "broken" failed');
  });

  it('MCP tools ask in default mode: without a rule, -p denies the call and the server never sees it', async () => {
    const log = fixtureLog();
    const run = await runAgainst(callThenAnswer('mcp__fixture__echo', { text: 'x' }), ['-p', 'go', ...streamJson, '--mcp-config', config({ fixture: fixture(log) })], makeSandbox());
    expect(run.code).toBe(0);
    expect(toolResultOf(parseLines(run.stdout))).toMatchObject({ is_error: true });
    expect(readLog(log)).not.toContain('call echo');
  });

  it('rules name one tool (mcp__<server>__<tool>) or a whole server (mcp__<server>); a bare deny name removes the tools', async () => {
    const log = fixtureLog();
    const allowOne = await runAgainst(
      callThenAnswer('mcp__fixture__echo', { text: 'one tool allowed' }),
      ['-p', 'go', ...streamJson, '--mcp-config', config({ fixture: fixture(log) }), '--allowedTools', 'mcp__fixture__echo'],
      makeSandbox(),
    );
    expect(toolResultOf(parseLines(allowOne.stdout))).toMatchObject({ content: 'one tool allowed' });
    const denied = await runAgainst(
      callThenAnswer('mcp__fixture__echo', { text: 'x' }),
      ['-p', 'go', ...streamJson, '--mcp-config', config({ fixture: fixture(log) }), '--allowedTools', 'mcp__fixture__echo', '--disallowedTools', 'mcp__fixture'],
      makeSandbox(),
    );
    // A bare deny name removes the server's tools from the offer (Claude Code's meaning); a call anyway is an error.
    expect(denied.server.requests[0]!.body!.tools!.map((t) => t.name).filter((n) => n.startsWith('mcp__'))).toEqual([]);
    expect(toolResultOf(parseLines(denied.stdout))).toMatchObject({ is_error: true });
  });

  it('an invalid --mcp-config is a clear error before anything starts', async () => {
    const run = await runAgainst([], ['-p', 'go', '--mcp-config', '{"mcpServers": {"x": {"type": "ws"}}}'], makeSandbox());
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('MCP server "x": unknown "type" "ws"');
  });
});

describe('.mcp.json (project scope)', () => {
  it('an unapproved project server is not started and is listed pending with a warning', async () => {
    const log = fixtureLog();
    const box = makeSandbox({ '.mcp.json': config({ project: fixture(log) }) });
    const run = await runAgainst([{ kind: 'message', blocks: [{ type: 'text', text: 'ok' }] }], ['-p', 'go', ...streamJson], box);
    expect(run.code).toBe(0);
    expect(initOf(parseLines(run.stdout)).mcp_servers).toEqual([{ name: 'project', status: 'pending' }]);
    expect(run.stderr).toContain('MCP server "project" was not started');
    expect(readLog(log)).toBe('');
  });

  it('approved in the user settings (enabledMcpjsonServers), it starts; the project cannot approve itself', async () => {
    const log = fixtureLog();
    const box = makeSandbox({
      '.mcp.json': config({ project: fixture(log), other: fixture(log) }),
      '.claude/settings.json': JSON.stringify({ enableAllProjectMcpServers: true }),
    });
    writeFileSync(join(box.home, '.claude.json'), JSON.stringify({ enabledMcpjsonServers: ['project'] }));
    const run = await runAgainst([{ kind: 'message', blocks: [{ type: 'text', text: 'ok' }] }], ['-p', 'go', ...streamJson], box);
    expect(initOf(parseLines(run.stdout)).mcp_servers).toEqual([
      { name: 'project', status: 'connected' },
      { name: 'other', status: 'pending' },
    ]);
  });

  it('disabledMcpjsonServers wins over enableAllProjectMcpServers: listed disabled, never started', async () => {
    const log = fixtureLog();
    const box = makeSandbox({ '.mcp.json': config({ refused: fixture(log), other: fixture(fixtureLog()) }) });
    writeFileSync(join(box.home, '.claude.json'), JSON.stringify({ enableAllProjectMcpServers: true, disabledMcpjsonServers: ['refused'] }));
    const run = await runAgainst([{ kind: 'message', blocks: [{ type: 'text', text: 'ok' }] }], ['-p', 'go', ...streamJson], box);
    expect(initOf(parseLines(run.stdout)).mcp_servers).toEqual([
      { name: 'other', status: 'connected' },
      { name: 'refused', status: 'disabled' },
    ]);
    expect(readLog(log)).toBe('');
  });

  it('--strict-mcp-config uses only the --mcp-config servers', async () => {
    const log = fixtureLog();
    const box = makeSandbox({ '.mcp.json': config({ project: fixture(log) }) });
    writeFileSync(join(box.home, '.claude.json'), JSON.stringify({ enableAllProjectMcpServers: true }));
    const run = await runAgainst(
      [{ kind: 'message', blocks: [{ type: 'text', text: 'ok' }] }],
      ['-p', 'go', ...streamJson, '--strict-mcp-config', '--mcp-config', config({ only: fixture(fixtureLog()) })],
      box,
    );
    expect(initOf(parseLines(run.stdout)).mcp_servers).toEqual([{ name: 'only', status: 'connected' }]);
    expect(readLog(log)).toBe('');
  });
});

describe('subagents', () => {
  it("an --agents subagent calls the parent's MCP tool through the command", async () => {
    const log = fixtureLog();
    const childPrompt = 'You are the MCP-using child in a test.';
    const systemText = (request: { system?: unknown }) => JSON.stringify(request.system ?? '');
    const hasResult = (request: { messages: readonly { content: unknown }[] }) => JSON.stringify(request.messages.at(-1)!.content).includes('tool_result');
    const script: Script = (request) => {
      if (systemText(request).includes(childPrompt)) {
        return hasResult(request)
          ? { kind: 'message', blocks: [{ type: 'text', text: 'child finished' }] }
          : { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_child_echo', name: 'mcp__fixture__echo', input: { text: 'echo from the child' } }] };
      }
      return hasResult(request)
        ? { kind: 'message', blocks: [{ type: 'text', text: 'parent finished' }] }
        : { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_agent', name: 'Agent', input: { description: 'echo', prompt: 'echo it', subagent_type: 'echoer' } }] };
    };
    const agents = JSON.stringify({ echoer: { description: 'echoes through MCP', prompt: childPrompt } });
    const run = await runAgainst(
      script,
      ['-p', 'go', ...streamJson, '--mcp-config', config({ fixture: fixture(log) }), '--allowedTools', 'mcp__fixture', '--agents', agents],
      makeSandbox(),
    );
    expect(run.code).toBe(0);
    const child = run.server.requests.map((r) => r.body!).find((b) => systemText(b).includes(childPrompt))!;
    expect(child.tools!.map((t) => t.name)).toContain('mcp__fixture__echo');
    expect(readLog(log)).toContain('call echo {"text":"echo from the child"}');
    expect(parseLines(run.stdout).at(-1)).toMatchObject({ type: 'result', subtype: 'success', result: 'parent finished' });
  });
});
