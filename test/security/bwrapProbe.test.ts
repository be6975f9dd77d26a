/**
 * The sandbox probe the command starts before loading its modules (bwrapProbe.ts): the same run
 * as the synchronous probe, the same answer, read by createSandbox once settled.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bwrapProbeResult, probeBwrap, probeBwrapAhead, settleBwrapProbes } from '../../src/sandbox/bwrapProbe.js';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A PATH whose `bwrap` is a script: exits with `code`, printing `message` on stderr. */
function fakeBwrap(code: number, message: string): { path: string; bwrap: string } {
  const dir = mkdtempSync(join(tmpdir(), 'rxagent-probe-'));
  dirs.push(dir);
  const bwrap = join(dir, 'bwrap');
  writeFileSync(bwrap, `#!/bin/sh\necho '${message}' >&2\nexit ${code}\n`);
  chmodSync(bwrap, 0o755);
  return { path: `${dir}:/usr/bin:/bin`, bwrap };
}

describe.runIf(process.platform === 'linux')('probeBwrapAhead', () => {
  it('a failing bwrap: the early probe gives the synchronous probe\'s answer, and createSandbox\'s read uses it', async () => {
    const { path, bwrap } = fakeBwrap(1, 'No permissions to creating new namespace');
    const expected = probeBwrap(bwrap, '/bin/bash');
    expect(expected).toBe('bwrap cannot create namespaces here (No permissions to creating new namespace)');
    probeBwrapAhead(path);
    await settleBwrapProbes();
    // Replaced by a working bwrap now: an answer read from the cache is still the early probe's.
    writeFileSync(bwrap, '#!/bin/sh\nexit 0\n');
    expect(bwrapProbeResult(bwrap, '/bin/bash')).toBe(expected);
  });

  it('a working bwrap: no failure', async () => {
    const { path, bwrap } = fakeBwrap(0, '');
    probeBwrapAhead(path);
    await settleBwrapProbes();
    expect(bwrapProbeResult(bwrap, '/bin/bash')).toBeUndefined();
  });

  it('no bwrap on PATH: nothing is started and settling resolves at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rxagent-probe-'));
    dirs.push(dir);
    probeBwrapAhead(dir);
    await expect(settleBwrapProbes()).resolves.toBeUndefined();
    expect(bwrapProbeResult(join(dir, 'bwrap'), '/bin/bash')).toMatch(/^bwrap could not start/);
  });
});
