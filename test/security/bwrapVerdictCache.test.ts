/**
 * The bwrap probe's positive verdict kept on disk (bwrapVerdictCache.ts): a start on an unchanged
 * machine runs no probe; a negative verdict is never kept; anything odd about the file means a
 * probe, silently; and when bwrap stops working after a verdict was kept, commands fail closed
 * (they never run unconfined) and the verdict is dropped, so the next start is as without cache.
 *
 * Each "start" is a fresh instance of the modules (vi.resetModules), as a new process would have.
 * `bwrap` on PATH is a script that logs every run and then execs the real bwrap, unless a flag
 * file (outside everything the key looks at) tells it to fail the way bwrap fails without user
 * namespaces.
 */
import { chmodSync, chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstValueFrom } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { findOnPath, probeBwrap } from '../../src/sandbox/bwrapProbe.js';
import { VERDICT_FILE_NAME } from '../../src/sandbox/bwrapVerdictCache.js';
import { runProcessGroup } from '../../src/tools/builtin/processGroup.js';

const realBwrap = process.platform === 'linux' ? findOnPath('bwrap') : undefined;
const works = realBwrap !== undefined && probeBwrap(realBwrap, '/bin/bash') === undefined;
if (!works) console.warn('bwrap verdict cache tests skipped: no working bwrap here');

let dir: string;
let bin: string;
let cacheDir: string;
let log: string;
let failFlag: string;
let path: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'rxagent-verdict-'));
  bin = join(dir, 'bin');
  cacheDir = join(dir, 'cache', 'rxagent');
  log = join(dir, 'runs.log');
  failFlag = join(dir, 'fail');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'bwrap'),
    `#!/bin/sh\necho run >> '${log}'\nif [ -e '${failFlag}' ]; then echo 'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2; exit 1; fi\nexec '${realBwrap}' "$@"\n`,
  );
  chmodSync(join(bin, 'bwrap'), 0o755);
  path = `${bin}:/usr/bin:/bin`;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const runs = () => (existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0);
const verdictFile = () => join(cacheDir, VERDICT_FILE_NAME);

/** One start as the command makes it: the early probe with the cache directory, then the run's sandbox. */
async function start(roots: string[] = [dir]) {
  vi.resetModules();
  const exitListeners = process.listeners('exit');
  const probe = await import('../../src/sandbox/bwrapProbe.js');
  const { createSandbox } = await import('../../src/sandbox/createSandbox.js');
  // Each fresh instance of placeholders.ts adds its exit cleanup; these calls leave nothing for it.
  for (const listener of process.listeners('exit')) if (!exitListeners.includes(listener)) process.removeListener('exit', listener);
  probe.probeBwrapAhead(path, cacheDir);
  await probe.settleBwrapProbes();
  return createSandbox({ platform: 'linux', roots, env: { PATH: path } });
}

async function runIn(sandbox: Awaited<ReturnType<typeof start>>, command: string) {
  const plan = sandbox.plan(command, dir, { workspace: 'write', protectedDirs: 'read' });
  expect(plan.sandboxed).toBe(true);
  return firstValueFrom(runProcessGroup({ command, cwd: dir, timeoutMs: 30_000, spawnPlan: plan, killGraceMs: 300, combineOutput: false }));
}

describe.runIf(works)('the remembered bwrap verdict', () => {
  it('the first start probes and keeps the verdict; the next start takes it without running bwrap', async () => {
    const first = await start();
    expect(first.status).toEqual({ kind: 'bwrap', network: 'none' });
    expect(runs()).toBe(1);
    expect(existsSync(verdictFile())).toBe(true);
    const second = await start();
    expect(second.status).toEqual(first.status);
    expect(runs()).toBe(1);
    // And its commands are confined as ever.
    const result = await runIn(second, `echo inside > '${dir}/y'; echo x > /etc/rxagent-verdict-test 2>/dev/null || echo refused`);
    expect(result.exitCode).toBe(0);
    expect(result.output).toBe('refused\n');
    expect(readFileSync(join(dir, 'y'), 'utf8')).toBe('inside\n');
  });

  it('a failing probe is never kept: every start probes and gets the same "off" status', async () => {
    writeFileSync(failFlag, '');
    const first = await start();
    expect(first.status).toEqual({ kind: 'off', reason: 'bwrap cannot create namespaces here (bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.)' });
    expect(existsSync(verdictFile())).toBe(false);
    const second = await start();
    expect(second.status).toEqual(first.status);
    expect(runs()).toBe(2);
  });

  it('bwrap broken after the verdict was kept: the command fails closed with bwrap\'s reason, the verdict is dropped, and the next start is "off"', async () => {
    await start();
    writeFileSync(failFlag, '');
    const stale = await start();
    expect(stale.status.kind).toBe('bwrap'); // taken from disk: nothing ran yet
    const marker = join(dir, 'ran');
    const result = await runIn(stale, `touch '${marker}'`);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/^bwrap: No permissions to creating new namespace/);
    expect(existsSync(marker)).toBe(false); // never unconfined
    expect(existsSync(verdictFile())).toBe(false);
    const next = await start();
    expect(next.status.kind).toBe('off');
  });

  it('a command of its own failing keeps the verdict when the recheck finds bwrap still working', async () => {
    await start();
    const sandbox = await start();
    const before = runs();
    const result = await runIn(sandbox, 'exit 3');
    expect(result.exitCode).toBe(3);
    expect(runs()).toBe(before + 2); // the command, then the one recheck
    await runIn(sandbox, 'exit 4');
    expect(runs()).toBe(before + 3); // once per process
    expect(existsSync(verdictFile())).toBe(true);
  });

  it('a changed bwrap (another file at its path) is probed again', async () => {
    await start();
    const script = readFileSync(join(bin, 'bwrap'), 'utf8');
    writeFileSync(join(bin, 'bwrap'), `${script}# changed\n`);
    await start();
    expect(runs()).toBe(2);
  });

  it('a corrupt, foreign or others-writable file, or a symlink, is ignored and the probe runs, silently', async () => {
    await start();
    const kept = readFileSync(verdictFile(), 'utf8');
    const writes = vi.spyOn(process.stderr, 'write');
    const cases: Array<() => void> = [
      () => writeFileSync(verdictFile(), '{"works":tru'),
      () => writeFileSync(verdictFile(), JSON.stringify({ works: false, key: JSON.parse(kept).key })),
      () => {
        writeFileSync(verdictFile(), kept);
        chmodSync(verdictFile(), 0o666);
      },
      () => {
        rmSync(verdictFile());
        writeFileSync(join(dir, 'elsewhere.json'), kept);
        symlinkSync(join(dir, 'elsewhere.json'), verdictFile());
      },
    ];
    if (process.getuid?.() === 0) {
      cases.push(() => {
        rmSync(verdictFile(), { force: true });
        writeFileSync(verdictFile(), kept, { mode: 0o600 });
        chownSync(verdictFile(), 12345, 12345);
      });
    }
    let expected = 1;
    for (const spoil of cases) {
      spoil();
      expect((await start()).status.kind).toBe('bwrap');
      expect(runs()).toBe(++expected);
      rmSync(verdictFile(), { force: true });
      await start(); // a fresh, good entry for the next case
      expect(runs()).toBe(++expected);
    }
    expect(writes).not.toHaveBeenCalled();
    writes.mockRestore();
  });

  it('without a cache directory (the library\'s default) nothing is read or written', async () => {
    vi.resetModules();
    const probe = await import('../../src/sandbox/bwrapProbe.js');
    probe.probeBwrapAhead(path);
    await probe.settleBwrapProbes();
    expect(existsSync(join(dir, 'cache'))).toBe(false);
  });
});
