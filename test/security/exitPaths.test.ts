/**
 * The process-survival matrix: `rxagent -p` is ended each way while a Bash call runs (normal end,
 * SIGINT, SIGTERM twice, SIGHUP, a closed stdout), and no process of the call may survive. In
 * the sandbox that includes a `setsid` daemon (its PID namespace dies with the call); without
 * the sandbox a setsid child leaves our process group and cannot be tracked, so that matrix has
 * plain background children only (see README: what the fallback does not guarantee).
 * Each step waits for its effect (the processes appearing, rxagent exiting), not for a clock.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSandbox } from '../../src/sandbox/createSandbox.js';
import { BRIDGE_MESSAGE } from '../../src/sandbox/networkProxy.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { assertBuilt, CLI, makeSandbox, removeSandboxes } from '../cli/helpers.js';
import { processesWith, survivorsOf, waitFor } from './processes.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const haveSandbox = createSandbox({ platform: process.platform, roots: ['/'] }).status.kind === 'bwrap';
type Way = 'normal' | 'SIGINT' | 'SIGTERM twice' | 'SIGHUP' | 'EPIPE';
const WAYS: readonly Way[] = ['normal', 'SIGINT', 'SIGTERM twice', 'SIGHUP', 'EPIPE'];
let counter = 0;

/**
 * `guarded`: acceptEdits with Bash allowed and an allowedDomains list, so the call also has the
 * proxy bridge's channel and placeholders for the missing .git/.claude/.rxagent (session 7).
 */
async function endRunWhileToolRuns(way: Way, sandboxed: boolean, guarded = false): Promise<{ token: string; code: number | null; stderr: string; cwd: string; bridgedWhileRunning: number }> {
  const token = `1000.${process.pid}${++counter}`;
  // setsid, nohup and a double fork (the daemon's parent exits at once): three ways to leave the group.
  const daemons = sandboxed
    ? `setsid sleep ${token} > /dev/null 2>&1 < /dev/null & nohup sleep ${token} > /dev/null 2>&1 < /dev/null & ( (sleep ${token} > /dev/null 2>&1 < /dev/null &) & ); `
    : '';
  // For EPIPE the call must start while the response is still held open: only a read-only
  // (concurrency-safe) call starts at its block's end, so that case runs a plain `sleep`.
  const command =
    way === 'normal'
      ? `${daemons}sleep ${token} > /dev/null 2>&1 & echo started`
      : way === 'EPIPE'
        ? `sleep ${token}`
        : `${daemons}sleep ${token} & (trap '' TERM; exec sleep ${token}) & wait`;
  const expected = way === 'EPIPE' ? 1 : (sandboxed ? 3 : 0) + (way === 'normal' ? 1 : 2);
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const script: ScriptedResponse[] = [
    {
      kind: 'message',
      // For EPIPE the message end is held until stdout is closed: the stream event printed for it
      // (--include-partial-messages) then meets the closed pipe.
      ...(way === 'EPIPE' ? { endAfter: held } : {}),
      blocks: [{ type: 'tool_use', id: 'toolu_long', name: 'Bash', input: { command } }],
    },
    { kind: 'message', blocks: [{ type: 'text', text: 'done' }] },
  ];
  const server = await startScriptedServer({ script });
  const box = makeSandbox();
  if (guarded) {
    mkdirSync(join(box.home, '.rxagent'), { recursive: true });
    writeFileSync(join(box.home, '.rxagent', 'settings.json'), JSON.stringify({ sandbox: { network: { allowedDomains: ['example.test'] } } }));
  }
  const mode = guarded ? ['--permission-mode', 'acceptEdits', '--allowedTools', 'Bash'] : ['--permission-mode', 'bypassPermissions'];
  try {
    const child = spawn(
      process.execPath,
      [CLI, '-p', 'go', '--output-format', 'stream-json', '--verbose', ...mode, ...(sandboxed ? [] : ['--no-sandbox']), ...(way === 'EPIPE' ? ['--include-partial-messages'] : [])],
      { cwd: box.cwd, env: { PATH: process.env['PATH'] ?? '', HOME: box.home, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.baseURL }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    if (way !== 'EPIPE') child.stdout.resume();
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await waitFor(() => processesWith(token).length >= expected || child.exitCode !== null, 'the tool processes to start');
    // This run's proxied bwrap, seen while its call runs: the bridge's source is on its command line
    // and so is this run's own workspace (--chdir), which no concurrent test's sandbox has.
    const bridgedWhileRunning = guarded ? processesWith(BRIDGE_MESSAGE, box.cwd).length : 0;
    switch (way) {
      case 'normal':
        break;
      case 'SIGINT':
        child.kill('SIGINT');
        break;
      case 'SIGTERM twice':
        child.kill('SIGTERM');
        child.kill('SIGTERM');
        break;
      case 'SIGHUP':
        child.kill('SIGHUP');
        break;
      case 'EPIPE':
        child.stdout.destroy();
        release();
        break;
    }
    const code = await exited;
    return { token, code, stderr, cwd: box.cwd, bridgedWhileRunning };
  } finally {
    release();
    await server.close();
  }
}

describe.runIf(haveSandbox)('sandboxed: nothing of the call survives rxagent', () => {
  for (const way of WAYS) {
    test.concurrent(way, async () => {
      const { token, code, stderr } = await endRunWhileToolRuns(way, true);
      expect(await survivorsOf(token)).toEqual([]);
      if (way === 'normal') expect(code, stderr).toBe(0);
      if (way === 'EPIPE') {
        expect(code).toBe(141);
        expect(stderr).toBe(''); // nothing more, not even an error
      }
    }, 120_000);
  }
});

describe.runIf(haveSandbox)('sandboxed with the proxy bridge and placeholders: nothing survives, nothing is left in the workspace', () => {
  for (const way of WAYS) {
    test.concurrent(way, async () => {
      const { token, code, stderr, cwd, bridgedWhileRunning } = await endRunWhileToolRuns(way, true, true);
      expect(await survivorsOf(token)).toEqual([]);
      // Only this run's sandbox: every proxied bwrap on the machine carries the bridge's source, and
      // the other ways run concurrently (so may other suites). The bridge itself ran inside that
      // sandbox's PID namespace, which ends with it. Where the call was still running when this
      // looked (every way but a normal end, whose call returns at once), the pair of tokens must
      // have found the sandbox: the check below can fail.
      if (way !== 'normal') expect(bridgedWhileRunning).toBeGreaterThan(0);
      expect(await survivorsOf(BRIDGE_MESSAGE, cwd)).toEqual([]);
      if (way === 'normal') expect(code, stderr).toBe(0);
      // The placeholders went with the call, whichever way rxagent ended.
      expect(readdirSync(cwd).filter((name) => name.startsWith('.'))).toEqual([]);
    }, 120_000);
  }
});

describe.concurrent('without the sandbox: the process group of the call dies on every exit path', () => {
  for (const way of WAYS) {
    test(way, async () => {
      const { token } = await endRunWhileToolRuns(way, false);
      expect(await survivorsOf(token)).toEqual([]);
    }, 120_000);
  }
});
