/**
 * The bin's code cache (scripts/cliLauncher.js): the one the build shipped is taken as it is; a
 * bin without one (as under another node, which rejects it) compiles from source once and leaves
 * its own in the user's cache directory, private to the user, which the next start takes.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { assertBuilt, CLI } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'rxagent-code-cache-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
beforeAll(assertBuilt);

function version(bin: string, cacheHome: string): void {
  const run = spawnSync(process.execPath, [bin, '--version'], { env: { PATH: process.env['PATH'] ?? '', HOME: dir, XDG_CACHE_HOME: cacheHome }, encoding: 'utf8', timeout: 60_000 });
  expect(run.stderr).toBe('');
  expect(run.status).toBe(0);
  expect(run.stdout).toMatch(/^\d+\.\d+\.\d+ \(rxagent\)\n$/);
}

describe('the code cache', () => {
  it('the shipped cache is taken: nothing is written to the user cache directory', () => {
    const cacheHome = join(dir, 'shipped');
    version(CLI, cacheHome);
    expect(() => readdirSync(join(cacheHome, 'rxagent'))).toThrow(/ENOENT/);
  });

  it('without it, the first start writes a private cache of its own and the next start takes it as it is', () => {
    const bin = join(dir, 'copy', 'dist', 'src', 'cli');
    mkdirSync(bin, { recursive: true });
    copyFileSync(CLI, join(bin, 'main.js'));
    copyFileSync(join(CLI, '..', 'rxagent.cjs'), join(bin, 'rxagent.cjs'));
    const cacheHome = join(dir, 'user');
    version(join(bin, 'main.js'), cacheHome);
    const files = readdirSync(join(cacheHome, 'rxagent'));
    expect(files).toEqual([expect.stringMatching(new RegExp(`^code-[0-9a-f]{16}-${process.version}-${process.arch}\\.cache$`))]);
    const file = join(cacheHome, 'rxagent', files[0]!);
    expect(statSync(join(cacheHome, 'rxagent')).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const written = statSync(file).mtimeMs;
    version(join(bin, 'main.js'), cacheHome);
    expect(statSync(file).mtimeMs).toBe(written); // accepted: not made again
    expect(readdirSync(join(cacheHome, 'rxagent'))).toEqual(files);
  });
});
