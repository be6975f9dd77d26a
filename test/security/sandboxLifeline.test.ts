/**
 * A sandbox never outlives rxagent, even when rxagent dies in the first moments of a call.
 * `--die-with-parent` leaves a gap there: bwrap arms its parent-death signal only once it runs,
 * so an rxagent killed right after the spawn (SIGKILL, or an EPIPE exit racing a call that just
 * started) left that sandbox and its command running for good (seen in the EPIPE row of
 * exitPaths.test.ts under load). The lifeline (bwrap.ts) closes the gap: the watchdog inside
 * reads end-of-file once rxagent is gone, however early, and kills the sandbox's PID namespace.
 *
 * The "rxagent" here is a node process that starts one sandboxed call with the built code and
 * SIGKILLs itself at once, before bwrap can have armed anything.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSandbox } from '../../src/sandbox/createSandbox.js';
import { assertBuilt } from '../cli/helpers.js';
import { processesWith, survivorsOf, waitFor } from './processes.js';

const haveSandbox = createSandbox({ platform: process.platform, roots: ['/'] }).status.kind === 'bwrap';
const dist = new URL('../../dist/src/', import.meta.url).href;
const cwd = realpathSync(mkdtempSync(join(tmpdir(), 'rxagent-lifeline-')));
beforeAll(assertBuilt);
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

/** Starts `sleep <token>` in the sandbox from a node process that SIGKILLs itself right after the spawn. */
function startAndDie(token: string, network: 'none' | 'proxy'): Promise<number | null> {
  const script = `
    const { createSandbox, accessFor } = await import(${JSON.stringify(`${dist}sandbox/createSandbox.js`)});
    const { runProcessGroup } = await import(${JSON.stringify(`${dist}tools/builtin/processGroup.js`)});
    const cwd = ${JSON.stringify(cwd)};
    const settings = ${network === 'proxy' ? "{ network: { allowedDomains: ['example.test'] } }" : '{}'};
    const sandbox = createSandbox({ platform: 'linux', roots: [cwd], settings });
    const command = 'sleep ${token}';
    runProcessGroup({ command, cwd, spawnPlan: sandbox.plan(command, cwd, accessFor('default', true)), timeoutMs: 600000 }).subscribe({ error: () => {} });
    process.kill(process.pid, 'SIGKILL');
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: 'ignore' });
  return new Promise((resolve) => child.on('close', (code) => resolve(code)));
}

let counter = 0;
describe.runIf(haveSandbox)('a sandbox dies with rxagent even when rxagent dies as the call starts', () => {
  test.each(['none', 'proxy'] as const)('network %s: SIGKILLed right after the spawn, nothing of the call survives (3 tries)', async (network) => {
    for (let attempt = 0; attempt < 3; attempt++) {
      const token = `2000.${process.pid}${++counter}`;
      await startAndDie(token, network);
      // Give a surviving sandbox every chance to show itself: its command appears within moments.
      await waitFor(() => processesWith(token).some((pid) => isSleep(pid)), 'the sandboxed command to start', 3_000).catch(() => undefined);
      expect(await survivorsOf(token), `attempt ${attempt}`).toEqual([]);
    }
  }, 240_000);
});

function isSleep(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'sleep';
  } catch {
    return false;
  }
}
