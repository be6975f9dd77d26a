/**
 * A project's `.mcp.json` servers in a real terminal (tmux): the view asks about each server
 * nobody has approved or refused, before any starts. "Use it" starts that server in the same
 * session, "do not use it" lists it disabled in /mcp, Esc leaves it for the next start; the
 * answers land in `.claude/settings.local.json`, merged with what the file held. At the next start
 * only the undecided server is asked about; "every server of this project" starts it and sets
 * enableAllProjectMcpServers, and the refused one stays disabled (a refusal wins over "all").
 * A third start asks nothing.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { FIXTURE_SERVER } from '../mcp/servers.js';
import { READY, useScenarios } from './scenario.js';
import { hasTmux } from './tmux.js';

const open = useScenarios();

const QUESTION = (name: string) => new RegExp(`Start the MCP server "${name}"\\?\\n❯ 1\\. Yes, use "${name}"`);

describe.skipIf(!hasTmux())('project MCP servers are approved at start, in tmux', () => {
  test('use / do not use / later, stored in settings.local.json; the next start asks only about the undecided one', { timeout: 300_000 }, async () => {
    const logs = mkdtempSync(join(tmpdir(), 'rxagent-approval-logs-'));
    const log = (name: string) => join(logs, name);
    const started = (name: string) => existsSync(log(name)) && readFileSync(log(name), 'utf8').includes('pid ');
    const fixture = (name: string) => ({ command: process.execPath, args: [FIXTURE_SERVER], env: { FIXTURE_LOG: log(name) } });
    const scenario = await open({
      script: [],
      files: {
        '.mcp.json': JSON.stringify({ mcpServers: { alpha: fixture('alpha'), beta: fixture('beta'), gamma: fixture('gamma') } }),
        '.claude/settings.local.json': JSON.stringify({ permissions: { allow: ['Bash(ls)'] }, outputStyle: 'kept' }, null, 2),
      },
    });
    const { term, box } = scenario;
    const settingsFile = join(box.cwd, '.claude', 'settings.local.json');
    const settings = () => JSON.parse(readFileSync(settingsFile, 'utf8')) as Record<string, unknown>;

    const first = await term.waitFor(QUESTION('alpha'));
    expect(first).toContain('This project configures an MCP server you have not approved yet: alpha');
    expect(first).toContain(`runs: ${process.execPath} ${FIXTURE_SERVER}`);
    expect(first).toMatch(/2\. Yes, and use every MCP server this project configures, now and later\n\s+3\. No, do not use "alpha"/);
    // Nothing starts while the person decides.
    expect(started('alpha') || started('beta') || started('gamma')).toBe(false);
    term.keys('Enter');
    await term.waitFor(QUESTION('beta'));
    term.keys('3');
    await term.waitFor(QUESTION('gamma'));
    term.keys('Escape');
    await term.waitFor(READY);
    expect(term.history()).toContain('("gamma" is not started; you will be asked again next time)');

    expect(settings()).toEqual({ permissions: { allow: ['Bash(ls)'] }, outputStyle: 'kept', enabledMcpjsonServers: ['alpha'], disabledMcpjsonServers: ['beta'] });
    term.submit('/mcp');
    const report = await term.waitFor(/alpha\s+connected[\s\S]*gamma\s+pending/);
    expect(report).toMatch(/alpha\s+connected · fixture 1\.0\.0 · 9 tools\n\s+echo, /);
    expect(report).toMatch(/beta\s+disabled\n\s+refused: listed in "disabledMcpjsonServers"/);
    expect(started('alpha')).toBe(true);
    expect(started('beta') || started('gamma')).toBe(false);
    term.keys('C-d');
    expect(await term.waitForExit()).toBe(0);

    // The next start: only gamma is undecided; "every server of this project".
    const second = scenario.restart();
    await second.waitFor(QUESTION('gamma'));
    expect(second.history()).not.toMatch(/Start the MCP server "(alpha|beta)"/);
    second.keys('2');
    await second.waitFor(READY);
    expect(settings()).toMatchObject({ enableAllProjectMcpServers: true, enabledMcpjsonServers: ['alpha'], disabledMcpjsonServers: ['beta'], outputStyle: 'kept' });
    second.submit('/mcp');
    const after = await second.waitFor(/gamma\s+connected/);
    expect(after).toMatch(/beta\s+disabled/);
    expect(started('gamma')).toBe(true);
    expect(started('beta')).toBe(false);
    second.keys('C-d');
    expect(await second.waitForExit()).toBe(0);

    // Everything is decided: the third start asks nothing.
    const third = scenario.restart();
    await third.waitFor(READY);
    expect(third.history()).not.toContain('Start the MCP server');
    third.keys('C-d');
    expect(await third.waitForExit()).toBe(0);
  });
});
