/**
 * Approval of a project's MCP servers (`.mcp.json`): which of them start, which are refused, and
 * which wait for a person (resolveMcpServers over real files); and the interactive question's
 * answers stored in `.claude/settings.local.json` (createMcpApprover over a scripted front end;
 * the same question in a real terminal is test/terminal/mcpApproval.test.ts).
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Choice } from '../../src/cli/interactive/frontEnd.js';
import { createMcpApprover, withMcpApproval, type McpApprovalAnswer } from '../../src/cli/interactive/mcpApproval.js';
import { resolveMcpServers, type McpApprovals } from '../../src/mcp/sources.js';

const server = (name: string) => ({ command: 'node', args: [`${name}.js`] });

function project(local?: unknown, user?: unknown) {
  const cwd = mkdtempSync(join(tmpdir(), 'rxagent-approval-'));
  const homeDir = mkdtempSync(join(tmpdir(), 'rxagent-approval-home-'));
  writeFileSync(join(cwd, '.mcp.json'), JSON.stringify({ mcpServers: { a: server('a'), b: server('b'), c: server('c') } }));
  if (local !== undefined) {
    mkdirSync(join(cwd, '.claude'), { recursive: true });
    writeFileSync(join(cwd, '.claude', 'settings.local.json'), typeof local === 'string' ? local : JSON.stringify(local));
  }
  if (user !== undefined) writeFileSync(join(homeDir, '.claude.json'), JSON.stringify(user));
  return { cwd, homeDir };
}

const resolveIn = (p: { cwd: string; homeDir: string }, sessionApprovals?: McpApprovals) =>
  resolveMcpServers({ ...p, mcpConfig: [], strict: false, ...(sessionApprovals ? { sessionApprovals } : {}) });

describe('resolveMcpServers: project approval', () => {
  it('disabledMcpjsonServers wins over enableAllProjectMcpServers and over enabledMcpjsonServers', () => {
    const p = project({ enableAllProjectMcpServers: true, disabledMcpjsonServers: ['b'] }, { enabledMcpjsonServers: ['b'] });
    const resolved = resolveIn(p);
    expect(Object.keys(resolved.servers)).toEqual(['a', 'c']);
    expect(resolved.notStarted['b']).toMatchObject({ status: 'disabled' });
    expect(resolved.awaitingApproval).toEqual([]);
  });

  it('a server neither approved nor refused waits for a person (pending), with its configuration', () => {
    const resolved = resolveIn(project({ enabledMcpjsonServers: ['a'], disabledMcpjsonServers: ['c'] }));
    expect(Object.keys(resolved.servers)).toEqual(['a']);
    expect(resolved.awaitingApproval).toEqual([{ name: 'b', config: server('b') }]);
    expect(resolved.notStarted).toMatchObject({ b: { status: 'pending' }, c: { status: 'disabled' } });
  });

  it("this session's answers count as the files' do, and a refusal still wins over all", () => {
    const resolved = resolveIn(project(), { enableAllProjectMcpServers: true, disabledMcpjsonServers: ['a'] });
    expect(Object.keys(resolved.servers)).toEqual(['b', 'c']);
    expect(resolved.notStarted['a']).toMatchObject({ status: 'disabled' });
  });
});

/** A front end whose questions are answered from a list; what it printed is kept. */
function scriptedFrontEnd(answers: Array<McpApprovalAnswer | undefined>) {
  const asked: string[] = [];
  let printed = '';
  return {
    asked,
    printed: () => printed,
    frontEnd: {
      print: (text: string) => void (printed += text),
      choose: async <T>(title: string, options: ReadonlyArray<Choice<T>>): Promise<T | undefined> => {
        asked.push(title);
        expect(options.map((o) => o.value)).toEqual(['use', 'use_all', 'refuse']);
        return answers.shift() as T | undefined;
      },
    },
  };
}

const paint = (_style: string, text: string) => text;

describe('createMcpApprover', () => {
  it('stores each answer in .claude/settings.local.json, keeping the keys already there; Esc stores nothing and is not asked again', async () => {
    const p = project({ permissions: { allow: ['Bash(ls)'] }, model: 'kept' });
    const ui = scriptedFrontEnd(['use', 'refuse', undefined]);
    const warnings: string[] = [];
    const approve = createMcpApprover({ frontEnd: ui.frontEnd, paint, cwd: p.cwd, onWarning: (w) => warnings.push(w) });
    const first = await approve(resolveIn(p).awaitingApproval);
    expect(ui.asked).toEqual(['Start the MCP server "a"?', 'Start the MCP server "b"?', 'Start the MCP server "c"?']);
    expect(ui.printed()).toContain('runs: node a.js');
    expect(first).toEqual({ enableAllProjectMcpServers: false, enabledMcpjsonServers: ['a'], disabledMcpjsonServers: ['b'] });
    const file = JSON.parse(readFileSync(join(p.cwd, '.claude', 'settings.local.json'), 'utf8')) as Record<string, unknown>;
    expect(file).toEqual({ permissions: { allow: ['Bash(ls)'] }, model: 'kept', enabledMcpjsonServers: ['a'], disabledMcpjsonServers: ['b'] });
    expect(warnings).toEqual([]);
    // A rebuild of the run in the same session asks nobody again (c was left for the next start).
    const again = resolveIn(p, first);
    expect(again.awaitingApproval.map((s) => s.name)).toEqual(['c']);
    await approve(again.awaitingApproval);
    expect(ui.asked).toHaveLength(3);
    expect(Object.keys(again.servers)).toEqual(['a']);
  });

  it('"every server of this project" stops the questions and sets enableAllProjectMcpServers', async () => {
    const p = project();
    const ui = scriptedFrontEnd(['refuse', 'use_all']);
    const approve = createMcpApprover({ frontEnd: ui.frontEnd, paint, cwd: p.cwd, onWarning: () => undefined });
    await approve(resolveIn(p).awaitingApproval);
    expect(ui.asked).toHaveLength(2);
    const file = JSON.parse(readFileSync(join(p.cwd, '.claude', 'settings.local.json'), 'utf8')) as Record<string, unknown>;
    expect(file).toEqual({ disabledMcpjsonServers: ['a'], enableAllProjectMcpServers: true });
    const next = resolveIn(p);
    expect(Object.keys(next.servers)).toEqual(['b', 'c']);
    expect(next.notStarted['a']).toMatchObject({ status: 'disabled' });
  });

  it('a settings file that cannot take the answer is left as it was; the answer holds for this session, with a warning', async () => {
    const broken = '{"permissions": ';
    const p = project(broken);
    const ui = scriptedFrontEnd(['use', 'refuse', 'refuse']);
    const warnings: string[] = [];
    const approve = createMcpApprover({ frontEnd: ui.frontEnd, paint, cwd: p.cwd, onWarning: (w) => warnings.push(w) });
    // The unreadable .claude/ file is skipped by the resolver (loadSettings warns about it).
    const answers = await approve(resolveIn(p).awaitingApproval);
    expect(readFileSync(join(p.cwd, '.claude', 'settings.local.json'), 'utf8')).toBe(broken);
    expect(warnings).toHaveLength(3);
    expect(warnings[0]).toMatch(/could not save the answer about MCP server "a" to .*settings\.local\.json .*; it holds for this session only/);
    expect(Object.keys(resolveIn(p, answers).servers)).toEqual(['a']);
  });

  it('the view leaving (SIGTERM) withdraws the open question and asks no other; nothing is stored', async () => {
    const p = project();
    const leaving = new AbortController();
    const asked: string[] = [];
    const frontEnd = {
      print: () => undefined,
      // Like the terminal's choose: the open question resolves unanswered when its signal aborts.
      choose: <T>(title: string, _options: ReadonlyArray<Choice<T>>, signal?: AbortSignal) => {
        asked.push(title);
        const withdrawn = new Promise<T | undefined>((resolve) => signal?.addEventListener('abort', () => resolve(undefined), { once: true }));
        leaving.abort();
        return withdrawn;
      },
    };
    const approve = createMcpApprover({ frontEnd, paint, cwd: p.cwd, onWarning: () => undefined, signal: leaving.signal });
    expect(await approve(resolveIn(p).awaitingApproval)).toEqual({ enableAllProjectMcpServers: false, enabledMcpjsonServers: [], disabledMcpjsonServers: [] });
    expect(asked).toEqual(['Start the MCP server "a"?']);
    expect(existsSync(join(p.cwd, '.claude', 'settings.local.json'))).toBe(false);
  });

  it('withMcpApproval adds a name once and leaves other keys alone', () => {
    const base = { enabledMcpjsonServers: ['x'], other: 1 };
    expect(withMcpApproval(base, 'x', 'use')).toBe(base);
    expect(withMcpApproval(base, 'y', 'use')).toEqual({ enabledMcpjsonServers: ['x', 'y'], other: 1 });
    expect(withMcpApproval(base, 'y', 'refuse')).toEqual({ ...base, disabledMcpjsonServers: ['y'] });
    expect(withMcpApproval(base, 'y', 'use_all')).toEqual({ ...base, enableAllProjectMcpServers: true });
  });
});
