/**
 * `/mcp login <server>` in the interactive view, in a real terminal (tmux): the view shows the
 * authorization URL and opens it with `$BROWSER` (here a script that writes down the URL it was
 * given); the "browser" approves over plain HTTP; the view says the server is connected and /mcp
 * lists it connected, without a restart.
 */
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';
import { assertBuilt, CLI, makeSandbox, removeSandboxes } from '../cli/helpers.js';
import { eventually } from '../eventually.js';
import { hasTmux, startTerminal, type Terminal } from '../terminal/tmux.js';
import { READY } from '../terminal/scenario.js';
import { approveByHttp } from './approve.js';
import { startOAuthMcpServer, type OAuthMcpServer } from './fixtures/oauthServer.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

let cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of cleanup.reverse()) await step();
  cleanup = [];
});

describe.skipIf(!hasTmux())('/mcp login in tmux', () => {
  test('signs in through the browser and connects the server in the running view', { timeout: 120_000 }, async () => {
    const oauth: OAuthMcpServer = await startOAuthMcpServer();
    cleanup.push(() => oauth.close());
    const model: ScriptedServer = await startScriptedServer({ script: [] });
    cleanup.push(() => model.close());
    const box = makeSandbox({ 'mcp.json': JSON.stringify({ mcpServers: { remote: { type: 'http', url: oauth.mcpUrl } } }) });
    const opened = join(box.home, 'opened-url');
    const browser = join(box.home, 'browser.sh');
    writeFileSync(browser, `#!/bin/sh\nprintf '%s' "$1" > '${opened}.tmp' && mv '${opened}.tmp' '${opened}'\n`);
    chmodSync(browser, 0o755);
    const term: Terminal = startTerminal({ ...box, baseURL: model.baseURL, program: ['/usr/bin/env', `BROWSER=${browser}`, process.execPath, CLI, '--mcp-config', 'mcp.json'] });
    cleanup.push(() => term.kill());
    await term.waitFor(READY);
    term.submit('/mcp');
    await term.waitFor(/remote\s+needs authentication/);

    term.submit('/mcp login remote');
    await term.waitFor('Open this URL to sign in to the MCP server "remote"');
    const url = await eventually(() => (existsSync(opened) ? readFileSync(opened, 'utf8') : undefined), { what: 'the browser being opened' });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
    const page = await approveByHttp(url);
    expect(page.status).toBe(200);
    await term.waitFor('Signed in to "remote"; it is connected.');
    term.submit('/mcp');
    const report = await term.waitFor(/remote\s+connected · oauth-fixture 1\.0\.0 · 1 tool\n\s+whoami/);
    expect(report).not.toMatch(/at-[0-9a-f-]{36}|rt-[0-9a-f-]{36}/);
    expect(model.requests).toHaveLength(0);
  });
});
