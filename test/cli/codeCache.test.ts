/**
 * The bin's code cache (scripts/cliLauncher.js): the one the build shipped is taken as it is; a
 * bin without one (as under another node, which rejects it) compiles from source once and leaves
 * its own in the user's cache directory, private to the user, which the next start takes. Each
 * launcher (the bin, main.cjs, and main.js) does so, and the two compile the same script: a cache
 * one of them wrote is taken by the other.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, LAUNCHERS } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'rxagent-code-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(assertBuilt);

function version(bin: string, cacheHome: string): void {
  const run = spawnSync(process.execPath, [bin, '--version'], { env: { PATH: process.env['PATH'] ?? '', HOME: dir, XDG_CACHE_HOME: cacheHome }, encoding: 'utf8', timeout: 60_000 });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(run.stdout).toMatch(/^\d+\.\d+\.\d+ \(rxagent\)\n$/);
}

describe.each(LAUNCHERS)('$name: the code cache', ({ name, path: CLI }) => {
  it('the shipped cache is taken: nothing is written to the user cache directory', () => {
    const cacheHome = join(dir, `shipped-${name}`);
    version(CLI, cacheHome);
    expect(() => readdirSync(join(cacheHome, 'rxagent'))).toThrow(/ENOENT/);
  });

  it('without it, the first start writes a private cache of its own and the next start (and the other launcher) takes it as it is', () => {
    const bin = join(dir, `copy-${name}`, 'dist', 'src', 'cli');
    mkdirSync(bin, { recursive: true });
    for (const launcher of LAUNCHERS) copyFileSync(launcher.path, join(bin, launcher.name));
    copyFileSync(join(CLI, '..', 'rxagent.cjs'), join(bin, 'rxagent.cjs'));
    const other = LAUNCHERS.find((launcher) => launcher.name !== name)!.name;
    const cacheHome = join(dir, `user-${name}`);
    version(join(bin, name), cacheHome);
    const files = readdirSync(join(cacheHome, 'rxagent'));
    expect(files).toEqual([expect.stringMatching(new RegExp(`^code-[0-9a-f]{16}-${process.version}-${process.arch}\\.cache$`))]);
    const file = join(cacheHome, 'rxagent', files[0]!);
    expect(statSync(join(cacheHome, 'rxagent')).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const written = statSync(file).mtimeMs;
    version(join(bin, name), cacheHome);
    expect(statSync(file).mtimeMs).toBe(written); // accepted: not made again
    version(join(bin, other), cacheHome);
    expect(statSync(file).mtimeMs).toBe(written); // the other launcher's compile takes it too
    expect(readdirSync(join(cacheHome, 'rxagent'))).toEqual(files);
  });
});
