/** `npm start`'s entry: the scripted demo runs the real command and exits 0 when the tests pass. */
import { spawn } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect, test } from 'vitest';
import { assertBuilt, ROOT } from './helpers.js';

test('node dist/src/demo/start.js fixes the bundled project and exits 0', async () => {
  assertBuilt();
  const entry = join(ROOT, 'dist', 'src', 'demo', 'start.js');
  expect(existsSync(entry)).toBe(true);
  const env: NodeJS.ProcessEnv = { ...process.env };
  delete env['ANTHROPIC_API_KEY'];
  const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [entry], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', reject);
    child.on('close', (c) => resolve({ code: c, stdout: out }));
  });
  const workspace = /Workspace: (\S+)/.exec(stdout)?.[1];
  if (workspace) rmSync(dirname(workspace), { recursive: true, force: true });
  expect(stdout).toContain('SCRIPTED');
  expect(stdout).toMatch(/Workspace: .*rxagent-demo-/);
  expect(stdout).toContain('> Edit');
  expect(stdout).toContain('Demo passed');
  expect(stdout).not.toContain('\u001b[');
  expect(code).toBe(0);
});
