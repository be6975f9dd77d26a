/**
 * The OS sandbox as the attacker meets it: real Bash calls and hook commands in bubblewrap.
 * Each test asserts the effect on the host (a file not written, a connection not made, no
 * process left), waiting for that effect rather than for a clock.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { runHook } from '../../src/hooks/runHook.js';
import { accessFor, createSandbox } from '../../src/sandbox/createSandbox.js';
import { bwrapArgs } from '../../src/sandbox/bwrap.js';
import { bashTool } from '../../src/tools/builtin/bash.js';
import { createWorkspace, type Workspace } from '../../src/tools/builtin/workspace.js';
import { makeTempDir, runTool } from '../builtin/helpers.js';
import { survivorsOf } from './processes.js';

const probe = createSandbox({ platform: process.platform, roots: ['/'] });
const haveSandbox = probe.status.kind === 'bwrap';
if (!haveSandbox) console.warn(`sandbox tests skipped: ${probe.status.kind === 'off' ? probe.status.reason : ''}`);

let base: string;
let ws: string;
let outside: string;
let cleanup: () => Promise<void>;
let workspace: Workspace;

beforeEach(async () => {
  ({ dir: base, cleanup } = await makeTempDir('rxagent-sandbox-'));
  ws = join(base, 'ws');
  outside = join(base, 'outside');
  mkdirSync(ws);
  mkdirSync(outside);
  workspace = createWorkspace({ cwd: ws });
});
afterEach(() => cleanup());

function bashIn(mode: string) {
  const sandbox = createSandbox({ platform: process.platform, roots: workspace.roots });
  return (command: string, timeout?: number) =>
    runTool(bashTool(workspace, { sandbox, permissionMode: mode, killGraceMs: 300 }), { command, ...(timeout ? { timeout } : {}) });
}
const settle = <T>(p: Promise<T>) => p.then((v) => ({ ok: true as const, v: String(v) }), (e: Error) => ({ ok: false as const, v: e.message }));

describe.runIf(haveSandbox)('Bash in the bubblewrap sandbox', () => {
  test('writes outside the workspace fail; writes inside work', async () => {
    const bash = bashIn('default');
    const result = await settle(bash(`echo pwned > ${outside}/x; echo pwned > /etc/rxagent-pwned; echo inside > ${ws}/y`));
    expect(result.v).toMatch(/Read-only file system/);
    expect(existsSync(join(outside, 'x'))).toBe(false);
    expect(existsSync('/etc/rxagent-pwned')).toBe(false);
    expect(readFileSync(join(ws, 'y'), 'utf8')).toBe('inside\n');
  });

  test("rxagent's own /proc entry (and its environment) cannot be seen", async () => {
    const bash = bashIn('default');
    const previous = process.env['ANTHROPIC_API_KEY'];
    process.env['ANTHROPIC_API_KEY'] = 'sk-ant-sandbox-canary-0123456789';
    try {
      const out = await settle(bash(`test -e /proc/${process.pid}/environ && echo VISIBLE; cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c sk-ant-sandbox-canary; env | grep -c sk-ant-sandbox-canary; ls /proc | grep -cE '^[0-9]+$'`));
      expect(out.v).not.toContain('VISIBLE');
      expect(out.v).not.toContain('sk-ant-sandbox-canary-0123456789');
      const counts = out.v.split('\n').filter((l) => /^\d+$/.test(l)).map(Number);
      expect(counts.slice(0, 2)).toEqual([0, 0]); // the key in no environ, not in the command's own
      expect(counts[2]).toBeLessThan(10); // only the sandbox's own few processes
    } finally {
      if (previous === undefined) delete process.env['ANTHROPIC_API_KEY'];
      else process.env['ANTHROPIC_API_KEY'] = previous;
    }
  });

  describe('no network by default', () => {
    let server: Server;
    let port = 0;
    let connections = 0;
    beforeAll(async () => {
      server = createServer((socket) => {
        connections++;
        socket.destroy();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    test('a connection to a host port fails and never arrives', async () => {
      const out = await settle(bashIn('bypassPermissions')(`(echo hi > /dev/tcp/127.0.0.1/${port}) 2>&1 && echo CONNECTED || echo REFUSED`));
      expect(out.v).toContain('REFUSED');
      expect(out.v).not.toContain('CONNECTED');
      expect(connections).toBe(0);
    });
  });

  test('a setsid daemon dies with the call', async () => {
    const token = `31.${process.pid}7`;
    const out = await bashIn('bypassPermissions')(`setsid sleep ${token} > /dev/null 2>&1 < /dev/null & echo started`);
    expect(out).toContain('started');
    expect(await survivorsOf(token)).toEqual([]);
  });

  test('a setsid child holding stdout cannot hang the call past its timeout, and dies', async () => {
    const token = `27.${process.pid}3`;
    const out = await settle(bashIn('bypassPermissions')(`setsid sleep ${token} & sleep ${token}`, 500));
    expect(out).toMatchObject({ ok: false });
    expect(out.v).toMatch(/timed out after 500 ms/);
    expect(await survivorsOf(token)).toEqual([]);
  });

  test('/tmp is private to the call', async () => {
    const name = `rxagent-private-${process.pid}`;
    await bashIn('default')(`echo x > /tmp/${name} && cat /tmp/${name}`);
    expect(existsSync(join('/tmp', name))).toBe(false);
  });

  test.each(['.git', '.GIT', '.rxagent', '.Claude'])('%s stays read-only unless the mode is bypassPermissions', async (dir) => {
    mkdirSync(join(ws, dir));
    writeFileSync(join(ws, dir, 'config'), 'original\n');
    for (const mode of ['default', 'acceptEdits', 'dontAsk']) {
      const out = await settle(bashIn(mode)(`echo '[core] fsmonitor = evil' >> ${dir}/config; touch ${dir}/hooks-new`));
      expect(out.v).toMatch(/Read-only file system/);
      expect(readFileSync(join(ws, dir, 'config'), 'utf8')).toBe('original\n');
    }
    await bashIn('bypassPermissions')(`echo more >> ${dir}/config`);
    expect(readFileSync(join(ws, dir, 'config'), 'utf8')).toBe('original\nmore\n');
  });

  test('plan mode mounts the workspace read-only', async () => {
    const out = await settle(bashIn('plan')(`touch ${ws}/planned; rm -rf ${ws}/*; echo done`));
    expect(out.v).toMatch(/Read-only file system/);
    expect(existsSync(join(ws, 'planned'))).toBe(false);
  });

  test('a command classified read-only gets a read-only workspace in every mode', () => {
    for (const mode of ['default', 'acceptEdits', 'bypassPermissions', 'dontAsk', 'plan']) {
      expect(accessFor(mode, true)).toEqual({ workspace: 'read', protectedDirs: 'read' });
    }
    const args = bwrapArgs({ bwrap: 'bwrap', bash: 'bash', roots: [ws], network: 'none', node: process.execPath }, 'ls', ws, accessFor('default', true), { bindReadOnly: [], placeholders: [] });
    const at = args.indexOf(ws);
    expect(args[at - 1]).toBe('--ro-bind');
    expect(args).not.toContain('--bind');
  });

  test('hook commands run in the sandbox too', async () => {
    const sandbox = createSandbox({ platform: process.platform, roots: workspace.roots });
    const outcome = await runHook(
      { type: 'command', command: `echo pwned > ${outside}/hook; echo ok > ${ws}/hook-ran; exit 0` },
      { hook_event_name: 'Stop', session_id: 's', transcript_path: '', cwd: ws, stop_hook_active: false } as never,
      { cwd: ws, sandbox },
    );
    expect(outcome.warnings).toEqual([]);
    expect(existsSync(join(outside, 'hook'))).toBe(false);
    expect(readFileSync(join(ws, 'hook-ran'), 'utf8')).toBe('ok\n');
  });
});

describe('where no sandbox can be had, it says so', () => {
  test.each([
    [{ disabled: true }, /--no-sandbox/],
    [{ settings: { enabled: false } }, /sandbox\.enabled: false/],
    [{ platform: 'darwin' }, /darwin/],
    [{ env: { PATH: '/nonexistent' } }, /bwrap\) is not installed/],
  ])('%j', (override, reason) => {
    const created = createSandbox({ platform: 'linux', roots: ['/'], ...override });
    expect(created.status.kind).toBe('off');
    if (created.status.kind === 'off') expect(created.status.reason).toMatch(reason);
    expect(created.plan('ls', '/', accessFor('default', false))).toMatchObject({ file: 'bash', sandboxed: false });
  });

  test.runIf(haveSandbox)('any allowedDomains list goes through the filtering proxy (sandboxNetwork.test.ts), * included: the host network is never shared', () => {
    const created = createSandbox({ platform: 'linux', roots: ['/'], settings: { network: { allowedDomains: ['example.com'] } } });
    expect(created.status).toEqual({ kind: 'bwrap', network: 'proxy', allowedDomains: ['example.com'] });
    expect(createSandbox({ platform: 'linux', roots: ['/'] }).status).toEqual({ kind: 'bwrap', network: 'none' });
    expect(createSandbox({ platform: 'linux', roots: ['/'], settings: { network: { allowedDomains: ['*'] } } }).status).toEqual({ kind: 'bwrap', network: 'proxy', allowedDomains: ['*'] });
  });

  test.runIf(haveSandbox)('excludedCommands run outside the sandbox, nothing else does', () => {
    const created = createSandbox({
      platform: 'linux',
      roots: ['/'],
      settings: { excludedCommands: ['docker'] },
      commandNames: (c) => [c.split(' ')[0]!],
    });
    expect(created.plan('docker ps', '/', accessFor('default', false)).sandboxed).toBe(false);
    expect(created.plan('ls', '/', accessFor('default', false)).sandboxed).toBe(true);
  });
});
