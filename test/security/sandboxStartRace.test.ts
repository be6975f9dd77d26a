/**
 * A sandbox never outlives rxagent, even when rxagent dies before bwrap could arm anything.
 * `--die-with-parent` is a PR_SET_PDEATHSIG that bwrap sets once it runs: a parent that is
 * already dead by then is never noticed, so an rxagent SIGKILLed in the moment a Bash call
 * started left that sandbox and its command running for good.
 *
 * The race is made certain, not likely: `bwrap` on PATH is a wrapper that, for this test's
 * command only, SIGKILLs its parent (the real `rxagent -p`, driven by the scripted model), waits
 * until it has been reparented (rxagent is gone), and only then execs the real bwrap. So bwrap
 * starts, and arms its parent-death signal, strictly after rxagent died: the worst moment.
 * The sandbox's launcher must notice (its lifeline, bwrap.ts) and run nothing.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { findOnPath } from '../../src/sandbox/bwrap.js';
import { createSandbox } from '../../src/sandbox/createSandbox.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { assertBuilt, CLI, makeSandbox, removeSandboxes, runAgainst } from '../cli/helpers.js';
import { processesWith, survivorsOf, waitFor } from './processes.js';

const haveSandbox = createSandbox({ platform: process.platform, roots: ['/'] }).status.kind === 'bwrap';
const realBwrap = findOnPath('bwrap');
const shims = mkdtempSync(join(tmpdir(), 'rxagent-start-race-'));
beforeAll(assertBuilt);
afterAll(() => {
  removeSandboxes();
  rmSync(shims, { recursive: true, force: true });
});

/** A `bwrap` that kills its parent, then runs the real one once the parent is gone (for `token` only). */
function bwrapShim(token: string, dir: string): string {
  mkdirSync(dir, { recursive: true });
  const script = `#!/bin/sh
case "$*" in *${token}*) ;; *) exec ${realBwrap} "$@" ;; esac
parent=$PPID
# rxagent writes the seccomp filter (fd 3) after the spawn: take it all first, or a bwrap
# started after rxagent's death would fail on a short filter instead of meeting the race.
cat <&3 > ${JSON.stringify(join(dir, 'seccomp'))} && exec 3< ${JSON.stringify(join(dir, 'seccomp'))}
kill -KILL "$parent"
# Field 4 of /proc/self/stat is the parent pid: wait until it is no longer rxagent's.
while read -r _ _ _ now _ < /proc/$$/stat && [ "$now" = "$parent" ]; do sleep 0.01; done
: > ${JSON.stringify(join(dir, 'bwrap-started'))}
exec ${realBwrap} "$@"
`;
  writeFileSync(join(dir, 'bwrap'), script);
  chmodSync(join(dir, 'bwrap'), 0o755);
  return dir;
}

let counter = 0;
async function killedAsTheCallStarts(settings: object | undefined, mode: readonly string[]): Promise<{ token: string; started: boolean; signal: NodeJS.Signals | null }> {
  const token = `3000.${process.pid}${++counter}`;
  const dir = bwrapShim(token, join(shims, String(counter)));
  const server = await startScriptedServer({
    script: [
      { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_race', name: 'Bash', input: { command: `sleep ${token}` } }] },
      { kind: 'message', blocks: [{ type: 'text', text: 'done' }] },
    ],
  });
  const box = makeSandbox();
  if (settings) {
    mkdirSync(join(box.home, '.rxagent'), { recursive: true });
    writeFileSync(join(box.home, '.rxagent', 'settings.json'), JSON.stringify(settings));
  }
  try {
    const child = spawn(process.execPath, [CLI, '-p', 'go', '--output-format', 'stream-json', '--verbose', ...mode], {
      cwd: box.cwd,
      env: { PATH: `${dir}:${process.env['PATH'] ?? ''}`, HOME: box.home, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.baseURL },
      stdio: ['ignore', 'ignore', 'ignore'],
    });
    const signal = await new Promise<NodeJS.Signals | null>((resolve) => child.on('close', (_code, sig) => resolve(sig)));
    // The real bwrap starts only after rxagent is gone; wait for it to have started.
    await waitFor(() => existsSync(join(dir, 'bwrap-started')), 'the real bwrap to start after rxagent died', 30_000).catch(() => undefined);
    return { token, started: existsSync(join(dir, 'bwrap-started')), signal };
  } finally {
    await server.close();
  }
}

/** Ends whatever a failed run left behind, so a red test leaves no `sleep` for good. */
function killAll(token: string): void {
  for (const pid of processesWith(token)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

describe.runIf(haveSandbox && realBwrap !== undefined)('rxagent SIGKILLed before bwrap armed --die-with-parent: the sandbox runs nothing and ends', () => {
  test.each([
    ['no network', undefined, ['--permission-mode', 'bypassPermissions']],
    // acceptEdits: the missing .git/.claude/.rxagent get placeholders, so bwrap has --info-fd too.
    ['through the proxy, with placeholders', { sandbox: { network: { allowedDomains: ['example.test'] } } }, ['--permission-mode', 'acceptEdits', '--allowedTools', 'Bash']],
  ] as const)('%s', async (_name, settings, mode) => {
    const { token, started, signal } = await killedAsTheCallStarts(settings, mode);
    try {
      expect(signal).toBe('SIGKILL');
      expect(started).toBe(true); // the real bwrap did run, after its parent was gone
      expect(await survivorsOf(token)).toEqual([]);
    } finally {
      killAll(token);
    }
  }, 120_000);
});

describe.runIf(haveSandbox)('the launcher (pid 1 of the sandbox) adds nothing a command would not print itself', () => {
  test('exit codes, stdout and stderr come through as they are; a killed command is not reported twice', async () => {
    const bash = (id: string, command: string) => ({ type: 'tool_use' as const, id, name: 'Bash', input: { command } });
    const blocks = [bash('toolu_a', 'echo out; echo err >&2; exit 3'), bash('toolu_b', 'kill -KILL $$'), bash('toolu_c', 'cat; ls /proc/self/fd')];
    const box = makeSandbox();
    const run = await runAgainst([{ kind: 'message', blocks }, { kind: 'message', blocks: [{ type: 'text', text: 'done' }] }], ['-p', 'go', '--output-format', 'json', '--permission-mode', 'bypassPermissions'], { ...box, stdin: '' });
    expect(run.code, run.stderr).toBe(0);
    const last = JSON.parse(run.server.requests.at(-1)!.rawBody) as { messages: Array<{ content: unknown }> };
    const results = new Map<string, unknown>();
    for (const m of last.messages) if (Array.isArray(m.content)) for (const c of m.content as Array<{ type: string; tool_use_id: string; content: unknown }>) if (c.type === 'tool_result') results.set(c.tool_use_id, c.content);
    expect(results.get('toolu_a')).toMatch(/^`Bash` failed: (out\nerr|err\nout)\n\[exit code 3\]$/); // two pipes: either order
    expect(results.get('toolu_b')).toBe('`Bash` failed: [exit code 137]');
    expect(results.get('toolu_c')).toBe('0\n1\n2\n3\n[exit code 0]'); // 3 is ls's own
  }, 120_000);
});
