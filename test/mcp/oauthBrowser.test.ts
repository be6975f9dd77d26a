/**
 * The sign-in's browser step in a real browser (Debian's Chromium through playwright-core): the
 * authorization URL opened in a tab, the consent page's Approve clicked, the redirect landing on
 * our loopback callback, whose page says the sign-in worked; the server then connects with the
 * stored token.
 */
import { firstValueFrom } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcpServers } from '../../src/mcp/connectMcpServers.js';
import { createMemoryCredentialStore } from '../../src/mcp/oauth/credentialStore.js';
import { signInToMcpServer } from '../../src/mcp/oauth/signIn.js';
import { launchBrowser, type Browser } from '../serve/helpers.js';
import { startOAuthMcpServer, type OAuthMcpServer } from './fixtures/oauthServer.js';

let browser: Browser;
let server: OAuthMcpServer;
beforeAll(async () => {
  browser = await launchBrowser();
  server = await startOAuthMcpServer();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe('signing in with a real browser', () => {
  it('Approve in Chromium comes back to the loopback callback, which says so; the server then connects', { timeout: 60_000 }, async () => {
    const store = createMemoryCredentialStore();
    const page = await browser.newPage();
    let landed: Promise<unknown> | undefined;
    await signInToMcpServer('remote', { type: 'http', url: server.mcpUrl }, {
      store,
      signal: new AbortController().signal,
      onAuthorizationUrl: async (url) => {
        await page.goto(url.href);
        landed = page.waitForURL(/127\.0\.0\.1:\d+\/callback\?/).then(() => page.getByText('Signed in to the MCP server "remote"').waitFor());
        // Awaited: the browser comes back before the sign-in asks for the code.
        await page.click('#approve');
      },
    });
    await landed;
    expect(await page.textContent('body')).toContain('You can close this tab and go back to rxagent.');
    expect(page.errors).toEqual([]);
    const tools = await firstValueFrom(connectMcpServers({ remote: { type: 'http', url: server.mcpUrl } }, { credentials: store }));
    expect(tools.servers[0]!.status).toBe('connected');
    expect(tools.tools.map((t) => t.name)).toContain('mcp__remote__whoami');
  });
});
