/**
 * OAuth for remote MCP servers, against a real authorization server + Streamable HTTP MCP server
 * on 127.0.0.1 (test/mcp/fixtures/oauthServer.ts, the MCP SDK's server-side auth). The browser
 * step is driven by plain HTTP requests here (the consent page's Approve link, then the redirect
 * to our loopback callback); oauthBrowser.test.ts clicks it in Chromium.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { firstValueFrom } from 'rxjs';
import { parseMcpServers } from '../../src/mcp/config.js';
import { connectMcpServers } from '../../src/mcp/connectMcpServers.js';
import { openMcpSession } from '../../src/mcp/mcpSession.js';
import { createFileCredentialStore, createMemoryCredentialStore, credentialFileOf } from '../../src/mcp/oauth/credentialStore.js';
import { signInToMcpServer, McpSignInError } from '../../src/mcp/oauth/signIn.js';
import type { Script } from '../../src/testing/script.js';
import { assertBuilt, CLI, makeSandbox, parseLines, removeSandboxes, runAgainst } from '../cli/helpers.js';
import { approveByHttp } from './approve.js';
import { callTool, resultOf } from './hold.js';
import { startOAuthMcpServer, type OAuthMcpServer } from './fixtures/oauthServer.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

let server: OAuthMcpServer;
beforeEach(async () => {
  server = await startOAuthMcpServer();
});
afterEach(async () => {
  await server.close();
});

const remote = () => ({ type: 'http' as const, url: server.mcpUrl });
const textOf = (result: unknown) => JSON.stringify(result);

describe('connecting to an OAuth-protected server', () => {
  it('without a stored token: needs-auth, naming how to sign in, and nothing is registered', async () => {
    const tools = await firstValueFrom(connectMcpServers({ remote: remote() }, { credentials: createMemoryCredentialStore() }));
    expect(tools.servers[0]).toMatchObject({ name: 'remote', status: 'needs-auth' });
    expect(tools.servers[0]!.error).toContain('/mcp login remote');
    expect(server.counts.registrations).toBe(0);
  });

  it('signIn: registration, PKCE code exchange, then the server connects and its tool runs as the registered client', async () => {
    const store = createMemoryCredentialStore();
    const warnings: string[] = [];
    const session = await openMcpSession({ remote: remote() }, { credentials: store, onWarning: (w) => warnings.push(w) });
    try {
      expect(session.servers()[0]!.status).toBe('needs-auth');
      let approval: Promise<{ status: number; text: string }> | undefined;
      const status = await session.signIn('remote', {
        signal: new AbortController().signal,
        onAuthorizationUrl: async (url) => {
          expect(url.searchParams.get('code_challenge_method')).toBe('S256');
          expect(url.searchParams.get('redirect_uri')).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
          // Not awaited here: the sign-in listens for the callback once this returns.
          approval = approveByHttp(url.href);
        },
      });
      expect(status).toMatchObject({ name: 'remote', status: 'connected' });
      const callbackPage = await approval;
      expect(callbackPage?.status).toBe(200);
      expect(callbackPage?.text).toContain('Signed in to the MCP server &#34;remote&#34;');
      expect(server.counts).toMatchObject({ registrations: 1, codeExchanges: 1 });
      const clientId = store.get('remote', server.mcpUrl)!.clientInformation!.client_id;
      const result = resultOf(await callTool(session.tools(), 'mcp__remote__whoami', {}));
      expect(textOf(result)).toContain(`signed in as ${clientId}`);
      expect(warnings.some((w) => w.includes('needs authentication'))).toBe(true);
    } finally {
      await session.close();
    }
  });

  it('a revoked access token is refreshed on the 401 and the call goes through; a refused refresh means needs-auth again', async () => {
    const store = createMemoryCredentialStore();
    await signInToMcpServer('remote', remote(), { store, signal: new AbortController().signal, onAuthorizationUrl: (url) => void approveByHttp(url.href) });
    const before = store.get('remote', server.mcpUrl)!.tokens!.access_token;
    server.revokeAccessTokens();
    const tools = await firstValueFrom(connectMcpServers({ remote: remote() }, { credentials: store }));
    expect(tools.servers[0]!.status).toBe('connected');
    expect(server.counts.refreshes).toBe(1);
    expect(store.get('remote', server.mcpUrl)!.tokens!.access_token).not.toBe(before);

    server.revokeAccessTokens();
    server.revokeRefreshTokens();
    const again = await firstValueFrom(connectMcpServers({ remote: remote() }, { credentials: store }));
    expect(again.servers[0]).toMatchObject({ status: 'needs-auth' });
    // No second registration and no new code: a run never starts a sign-in by itself.
    expect(server.counts).toMatchObject({ registrations: 1, codeExchanges: 1 });
  });

  it('a callback with another state is refused (400) and the sign-in keeps waiting for the real one', async () => {
    const store = createMemoryCredentialStore();
    let forged: number | undefined;
    await signInToMcpServer('remote', remote(), {
      store,
      signal: new AbortController().signal,
      onAuthorizationUrl: async (url) => {
        const callback = new URL(url.searchParams.get('redirect_uri')!);
        callback.searchParams.set('code', 'forged');
        callback.searchParams.set('state', 'not-the-one-sent');
        forged = (await fetch(callback)).status;
        void approveByHttp(url.href);
      },
    });
    expect(forged).toBe(400);
    expect(store.get('remote', server.mcpUrl)!.tokens).toBeDefined();
    expect(server.counts.codeExchanges).toBe(1);
  });

  it('stopping a waiting sign-in rejects with a McpSignInError and stores no token', async () => {
    const store = createMemoryCredentialStore();
    const stop = new AbortController();
    const signIn = signInToMcpServer('remote', remote(), { store, signal: stop.signal, onAuthorizationUrl: () => stop.abort() });
    await expect(signIn).rejects.toBeInstanceOf(McpSignInError);
    expect(store.get('remote', server.mcpUrl)?.tokens).toBeUndefined();
  });

  it("a server's oauth settings are read as Claude Code writes them; a bad one is a ConfigurationError naming the field", () => {
    const parsed = parseMcpServers({ mcpServers: { r: { type: 'http', url: 'http://127.0.0.1:1/mcp', oauth: { clientId: 'given', callbackPort: 8765, scopes: 'read write' } } } }, 'test');
    expect(parsed['r']).toMatchObject({ oauth: { clientId: 'given', callbackPort: 8765, scopes: 'read write' } });
    expect(() => parseMcpServers({ mcpServers: { r: { type: 'http', url: 'http://127.0.0.1:1/mcp', oauth: { callbackPort: 'x' } } } }, 'test')).toThrow(/MCP server "r": "oauth" must be/);
  });

  it('the file store is owner-only (0600 in a 0700 directory), also when the file existed with a looser mode', () => {
    const home = mkdtempSync(join(tmpdir(), 'rxagent-oauth-store-'));
    const path = credentialFileOf(home);
    const store = createFileCredentialStore(path);
    store.update('a', 'http://127.0.0.1:1/mcp', { tokens: { access_token: 'x', token_type: 'Bearer' } });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(home, '.rxagent')).mode & 0o777).toBe(0o700);
    writeFileSync(path, readFileSync(path), { mode: 0o644 });
    store.update('b', 'http://127.0.0.1:2/mcp', { redirectUrl: 'http://127.0.0.1:3/callback' });
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(store.get('a', 'http://127.0.0.1:1/mcp')!.tokens!.access_token).toBe('x');
    // The same name at another URL is another server: no token is sent there.
    expect(store.get('a', 'http://127.0.0.1:9/mcp')).toBeUndefined();
    store.remove('a', 'http://127.0.0.1:1/mcp');
    expect(store.get('a', 'http://127.0.0.1:1/mcp')).toBeUndefined();
    expect(store.get('b', 'http://127.0.0.1:2/mcp')).toBeDefined();
  });
});

/** `rxagent mcp login <server> --no-browser`, with the URL it prints followed by `approve`. */
export function runLogin(
  args: readonly string[],
  box: { cwd: string; home: string },
  approve: (url: string) => Promise<unknown>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'mcp', 'login', ...args, '--no-browser'], {
      cwd: box.cwd,
      env: { PATH: process.env['PATH'] ?? '', HOME: box.home },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let approving = false;
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => {
      stderr += d.toString();
      const url = /^(http:\/\/127\.0\.0\.1:\d+\/authorize\?\S+)$/m.exec(stderr)?.[1];
      if (url && !approving) {
        approving = true;
        approve(url).catch(reject);
      }
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const callWhoami: Script = [
  { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_who', name: 'mcp__remote__whoami', input: {} }] },
  { kind: 'message', blocks: [{ type: 'text', text: 'done' }] },
];

describe('the command', () => {
  it('rxagent mcp login signs in; the -p runs after it use the server; tokens stay in a 0600 file and are never printed; logout forgets them', async () => {
    const mcpConfig = JSON.stringify({ mcpServers: { remote: remote() } });
    const box = makeSandbox({ 'mcp.json': mcpConfig });
    const login = await runLogin(['remote', '--mcp-config', 'mcp.json'], box, approveByHttp);
    expect(login.stderr).toContain('Open this URL to sign in to the MCP server "remote"');
    expect(login.stdout).toBe('Signed in to the MCP server "remote".\n');
    expect(login.code).toBe(0);
    const file = credentialFileOf(box.home);
    expect(statSync(file).mode & 0o777).toBe(0o600);

    const run = await runAgainst(callWhoami, ['-p', 'who', '--output-format', 'stream-json', '--verbose', '--mcp-config', 'mcp.json', '--allowedTools', 'mcp__remote'], box);
    expect(run.code).toBe(0);
    const lines = parseLines(run.stdout);
    expect(lines[0]).toMatchObject({ type: 'system', subtype: 'init', mcp_servers: [{ name: 'remote', status: 'connected' }] });
    expect(run.stdout).toContain('signed in as ');
    expect(server.callers).toHaveLength(1);
    for (const token of server.issued) {
      expect(readFileSync(file, 'utf8')).not.toBe('');
      expect(login.stdout + login.stderr + run.stdout + run.stderr).not.toContain(token);
    }

    const logout = await new Promise<string>((resolve) => {
      const child = spawn(process.execPath, [CLI, 'mcp', 'logout', 'remote', '--mcp-config', 'mcp.json'], { cwd: box.cwd, env: { PATH: process.env['PATH'] ?? '', HOME: box.home } });
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      child.on('close', () => resolve(out));
    });
    expect(logout).toBe('Signed out of the MCP server "remote".\n');
    const after = await runAgainst([{ kind: 'message', blocks: [{ type: 'text', text: 'ok' }] }], ['-p', 'x', '--output-format', 'stream-json', '--verbose', '--mcp-config', 'mcp.json'], box);
    expect(parseLines(after.stdout)[0]).toMatchObject({ mcp_servers: [{ name: 'remote', status: 'needs-auth' }] });
  });

  it('-p with a server never signed in to: needs-auth in init, a warning that says how to sign in, the run goes on', async () => {
    const box = makeSandbox();
    const run = await runAgainst([{ kind: 'message', blocks: [{ type: 'text', text: 'fine' }] }], ['-p', 'go', '--output-format', 'stream-json', '--verbose', '--mcp-config', JSON.stringify({ mcpServers: { remote: remote() } })], box);
    expect(run.code).toBe(0);
    expect(parseLines(run.stdout)[0]).toMatchObject({ mcp_servers: [{ name: 'remote', status: 'needs-auth' }] });
    expect(run.stderr).toMatch(/MCP server "remote" needs authentication.*rxagent mcp login remote/);
    expect(server.counts.registrations).toBe(0);
  });

  it('login refuses a server that is not configured or not remote, with exit 1 and the reason', async () => {
    const box = makeSandbox({ 'mcp.json': JSON.stringify({ mcpServers: { local: { command: 'node', args: ['x.js'] } } }) });
    const missing = await runLogin(['nothere', '--mcp-config', 'mcp.json'], box, async () => undefined);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('no MCP server named "nothere" is configured');
    const local = await runLogin(['local', '--mcp-config', 'mcp.json'], box, async () => undefined);
    expect(local.code).toBe(1);
    expect(local.stderr).toContain('not a remote (http or sse) server');
  });
});
