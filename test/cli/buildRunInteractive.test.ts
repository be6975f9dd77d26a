/** `loopOptions` tells the loop whether this run is the interactive view (PreToolUse 'defer' ignored there). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseCliArgs } from '../../src/cli/args.js';
import { buildRun, type PreparedRun, type RunEnvironment } from '../../src/cli/buildRun.js';

const dirs: string[] = [];
let run: PreparedRun | undefined;
afterEach(async () => {
  await run?.close();
  run = undefined;
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function prepared(argv: string[], extra: Partial<RunEnvironment>): Promise<PreparedRun> {
  const cwd = mkdtempSync(join(tmpdir(), 'rxagent-buildrun-cwd-'));
  const homeDir = mkdtempSync(join(tmpdir(), 'rxagent-buildrun-home-'));
  dirs.push(cwd, homeDir);
  run = await buildRun(parseCliArgs(argv), {
    env: { ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: 'http://127.0.0.1:9' },
    cwd,
    homeDir,
    platform: 'linux',
    interactive: false,
    onWarning: () => undefined,
    ...extra,
  });
  return run;
}

describe('buildRun loopOptions: interactive', () => {
  it('is false for a print-mode run', async () => {
    const r = await prepared(['-p', 'hi'], {});
    expect(r.loopOptions('hi', new AbortController().signal).interactive).toBe(false);
  });

  it('is true for the interactive view, even when nobody can answer questions (piped)', async () => {
    const r = await prepared([], { interactiveView: true, interactive: false });
    expect(r.loopOptions('hi', new AbortController().signal).interactive).toBe(true);
  });
});
