/**
 * Where no sandbox can be had it is said once at start, on stderr and in the init line, and
 * commands run unconfined under the permission rules (issue 15 §1: "never pretend"). macOS is
 * such a platform: rxagent has no Seatbelt profile. The platform check is forced here; the run
 * is built as the CLI builds it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { parseCliArgs } from '../../src/cli/args.js';
import { buildRun, describeRun, type PreparedRun } from '../../src/cli/buildRun.js';
import { initLine } from '../../src/cli/output/streamJson.js';

const dirs: string[] = [];
let run: PreparedRun | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function started(platform: string): Promise<{ run: PreparedRun; warnings: string[] }> {
  const cwd = mkdtempSync(join(tmpdir(), 'rxagent-nosandbox-cwd-'));
  const homeDir = mkdtempSync(join(tmpdir(), 'rxagent-nosandbox-home-'));
  dirs.push(cwd, homeDir);
  const warnings: string[] = [];
  run = await buildRun(parseCliArgs(['-p', 'hi']), {
    env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9', PATH: process.env['PATH'] ?? '' },
    cwd,
    homeDir,
    platform,
    interactive: false,
    onWarning: (text) => void warnings.push(text),
  });
  return { run, warnings };
}

describe('a platform without a sandbox says so once and never pretends', () => {
  test.each([
    ['darwin', /macOS \(darwin\): rxagent has no Seatbelt \(sandbox-exec\) profile/],
    ['win32', /no sandbox is implemented for win32/],
  ])('%s', async (platform, reason) => {
    const { run: prepared, warnings } = await started(platform);
    const said = warnings.filter((w) => w.includes('no sandbox'));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(reason);
    expect(said[0]).toMatch(/limited by the permission rules only/);
    expect(prepared.sandbox).toEqual({ kind: 'off', reason: expect.stringMatching(reason) });
    expect(initLine(describeRun(prepared), 'u1').sandbox).toEqual({ enabled: false, reason: expect.stringMatching(reason) });
  });
});
