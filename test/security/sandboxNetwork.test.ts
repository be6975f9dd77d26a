/**
 * `sandbox.network.allowedDomains` as the attacker meets it: a sandboxed command has no network of
 * its own; its one way out is rxagent's proxy, which lets through only the allowed hosts. Real
 * Bash calls in bubblewrap against a real HTTP server on 127.0.0.1 (reached as `localhost`, the
 * one name that stays on loopback); each test checks what the server received.
 */
import { createServer, type Server } from 'node:http';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { runHook } from '../../src/hooks/runHook.js';
import { createSandbox } from '../../src/sandbox/createSandbox.js';
import { BRIDGE_MESSAGE, domainAllowed, parseAuthority } from '../../src/sandbox/networkProxy.js';
import { describeSandbox } from '../../src/sandbox/types.js';
import { bashTool } from '../../src/tools/builtin/bash.js';
import { createWorkspace, type Workspace } from '../../src/tools/builtin/workspace.js';
import { makeTempDir, runTool } from '../builtin/helpers.js';
import { processesWith, survivorsOf } from './processes.js';

const haveSandbox = createSandbox({ platform: process.platform, roots: ['/'] }).status.kind === 'bwrap';

describe('which hosts a rule allows', () => {
  test.each([
    ['example.com', ['example.com'], true],
    ['EXAMPLE.com.', ['example.com'], true],
    ['api.example.com', ['example.com'], false],
    ['api.example.com', ['*.example.com'], true],
    ['a.b.example.com', ['*.example.com'], true],
    ['example.com', ['*.example.com'], false],
    ['evilexample.com', ['*.example.com'], false],
    ['example.com.evil.test', ['example.com'], false],
    ['anything.test', ['*'], true],
    ['127.0.0.1', ['localhost'], false],
    ['::1', ['[::1]'], true],
    ['', ['*.example.com'], false],
  ] as const)('%j with %j: %s', (host, rules, allowed) => {
    expect(domainAllowed(host, rules)).toBe(allowed);
  });

  test.each([
    ['example.com:443', { host: 'example.com', port: 443 }],
    ['[::1]:8080', { host: '::1', port: 8080 }],
    ['example.com', undefined],
    ['example.com:0', undefined],
    ['example.com:99999', undefined],
    ['a b:80', undefined],
    ['http://example.com:80', undefined],
  ])('CONNECT target %j', (authority, expected) => {
    expect(parseAuthority(authority)).toEqual(expected);
  });
});

describe.runIf(haveSandbox)('Bash through the filtering proxy', () => {
  let server: Server;
  let port: number;
  let seen: string[];
  let base: string;
  let cleanup: () => Promise<void>;
  let workspace: Workspace;
  /** This test's proxied sandboxes alive when the server last answered (the call was running then). */
  let sandboxesAtRequest = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push(req.url ?? '');
      sandboxesAtRequest = processesWith(BRIDGE_MESSAGE, workspace.cwd).length;
      res.end(`served ${req.url}`);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(async () => {
    seen = [];
    ({ dir: base, cleanup } = await makeTempDir('rxagent-sandbox-net-'));
    mkdirSync(join(base, 'ws'));
    workspace = createWorkspace({ cwd: join(base, 'ws') });
  });
  afterEach(() => cleanup());

  const bashWith = (allowedDomains: string[]) => {
    const sandbox = createSandbox({ platform: process.platform, roots: workspace.roots, settings: { network: { allowedDomains } } });
    return { sandbox, run: (command: string) => runTool(bashTool(workspace, { sandbox, permissionMode: 'default', killGraceMs: 300 }), { command }).then(String, (e: Error) => e.message) };
  };

  test('the status and the start-up line say which hosts, and how', () => {
    const { sandbox } = bashWith(['localhost', '*.npmjs.org']);
    expect(sandbox.status).toEqual({ kind: 'bwrap', network: 'proxy', allowedDomains: ['localhost', '*.npmjs.org'] });
    expect(describeSandbox(sandbox.status)).toMatch(/network only to localhost, \*\.npmjs\.org \(through rxagent's proxy/);
  });

  test('an allowed host is reached, by plain HTTP and through a CONNECT tunnel', async () => {
    const { run } = bashWith(['localhost']);
    const out = await run(`curl -sS http://localhost:${port}/plain; echo; curl -sS --proxytunnel http://localhost:${port}/tunnel`);
    expect(out).toContain('served /plain');
    expect(out).toContain('served /tunnel');
    expect(seen).toEqual(['/plain', '/tunnel']);
  });

  test('a host not on the list is refused by the proxy and never reached', async () => {
    const { run } = bashWith(['*.example.test']);
    const out = await run(`curl -sS http://localhost:${port}/plain; echo; curl -sS --proxytunnel http://localhost:${port}/tunnel; echo "tunnel exit $?"`);
    expect(out).toContain('this host is not in sandbox.network.allowedDomains');
    expect(out).toMatch(/403/);
    expect(out).not.toContain('served');
    expect(seen).toEqual([]);
  });

  test('the address of an allowed name is not allowed by itself (127.0.0.1 is not localhost)', async () => {
    const { run } = bashWith(['localhost']);
    const out = await run(`curl -sS http://127.0.0.1:${port}/by-ip`);
    expect(out).toContain('not in sandbox.network.allowedDomains');
    expect(seen).toEqual([]);
  });

  test('around the proxy there is no way out: no proxy variables, bash /dev/tcp, a hook command', async () => {
    const { sandbox, run } = bashWith(['localhost']);
    const out = await run(
      `curl -sS --noproxy '*' http://localhost:${port}/direct; echo "curl exit $?"; ` +
        `(exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET /devtcp HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3) 2>&1; echo "devtcp exit $?"`,
    );
    expect(out).toMatch(/curl exit 7/);
    expect(out).toMatch(/devtcp exit 1/);
    const hook = await runHook({ type: 'command', command: `curl -sS --noproxy '*' http://localhost:${port}/hook-direct || exit 0` }, {
      session_id: 's', transcript_path: undefined, cwd: workspace.cwd, hook_event_name: 'Stop', stop_hook_active: false,
    } as never, { cwd: workspace.cwd, sandbox });
    expect(hook.block).toBeUndefined();
    expect(seen).toEqual([]);
  });

  test("after the run's close the proxy is gone: nothing gets through any more", async () => {
    const { sandbox, run } = bashWith(['localhost']);
    expect(await run(`curl -sS http://localhost:${port}/before`)).toContain('served /before');
    sandbox.close();
    // The call fails closed (the bridge's socket is closed at once, connections are refused).
    const out = await run(`curl -sS http://localhost:${port}/after; echo "curl exit $?"`);
    expect(out).not.toContain('served /after');
    expect(out).not.toContain('curl exit 0');
    expect(seen).toEqual(['/before']);
  });

  test('the bridge inside the sandbox ends with the call', async () => {
    const { run } = bashWith(['localhost']);
    await run(`curl -sS http://localhost:${port}/once`);
    expect(seen).toEqual(['/once']);
    // The bridge is `node -e <source>` inside the call's sandbox, whose PID namespace ends with it;
    // the source is on that bwrap's command line too, beside this test's own workspace. Other
    // tests' and other suites' sandboxes carry the source but not this workspace: only this call's
    // is looked for (and it was there while the request was served, so the check can fail).
    expect(sandboxesAtRequest).toBeGreaterThan(0);
    expect(await survivorsOf(BRIDGE_MESSAGE, workspace.cwd)).toEqual([]);
  });

  test('the command itself gets neither the bridge channel nor its variables', async () => {
    const { run } = bashWith(['localhost']);
    const out = await run(`curl -sS http://localhost:${port}/fds >/dev/null; ls /proc/self/fd | tr "\\n" " "; echo; env | grep -c -E "^(NODE_CHANNEL|RXAGENT_NODE|RXAGENT_PROXY)"`);
    const [fds, vars] = out.trim().split('\n');
    // No fd 4 (the channel) or 5 (bwrap's info); descriptors the test runner itself inherited may show.
    expect(fds!.trim().split(' ')).not.toContain('4');
    expect(fds!.trim().split(' ')).not.toContain('5');
    expect(vars).toBe('0');
    expect(seen).toEqual(['/fds']);
  });
});
