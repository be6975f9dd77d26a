/**
 * The bin's list of node built-ins it loads before setting V8 flags (scripts/cliLauncher.js says
 * why): only public modules any node of the supported range can load by name, and every one a
 * `-p` run loads, so that none of them compiles from source after the flags. Both launchers (the
 * bin, main.cjs, and main.js, the same launcher as an ES module) carry the same list.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { assertBuilt, LAUNCHERS, makeSandbox, removeSandboxes } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

function preloadList(launcher: string): string[] {
  const found = /^const BUILTINS = (\[.*\]);$/m.exec(readFileSync(launcher, 'utf8'));
  if (!found) throw new Error(`${launcher} has no BUILTINS line`);
  return JSON.parse(found[1]!) as string[];
}

it('both launchers carry the same list', () => {
  const [esm, cjs] = LAUNCHERS.map((launcher) => preloadList(launcher.path));
  expect(cjs).toEqual(esm);
});

describe.each(LAUNCHERS)("$name: the built-ins loaded before its V8 flags", ({ path: CLI }) => {
  it('are public, loadable, not legacy or deprecated names', () => {
    const names = preloadList(CLI);
    expect(names).toEqual(expect.arrayContaining(['http', 'net', 'crypto']));
    for (const name of names) {
      expect(builtinModules).toContain(name);
      expect(name).not.toMatch(/^(_|internal\/)/);
      expect(['sys', 'punycode', 'constants', 'domain']).not.toContain(name);
      expect(process.getBuiltinModule(name)).toBeDefined();
    }
  });

  it('hold every public built-in a -p run loads, and the run answers as before', async () => {
    const { cwd, home } = makeSandbox();
    const listFile = join(home, 'loaded.json');
    const recorder = join(home, 'record.cjs');
    // Loaded with -r before the bin: writes the run's module list at exit.
    writeFileSync(recorder, `process.on('exit', () => require('fs').writeFileSync(${JSON.stringify(listFile)}, JSON.stringify(process.moduleLoadList)));\n`);
    const server = await startScriptedServer({ script: [{ kind: 'message', blocks: [{ type: 'text', text: 'hello' }] }] });
    try {
      const run = await new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, ['-r', recorder, CLI, '-p', 'hi'], {
          cwd,
          env: { PATH: process.env['PATH'] ?? '', HOME: home, ANTHROPIC_API_KEY: 'test-key', ANTHROPIC_BASE_URL: server.baseURL },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('close', (status) => resolve({ status, stdout, stderr }));
      });
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe('hello\n');
      expect(run.status).toBe(0);
    } finally {
      await server.close();
    }
    const loaded = (JSON.parse(readFileSync(listFile, 'utf8')) as string[])
      .filter((entry) => entry.startsWith('NativeModule '))
      .map((entry) => entry.slice('NativeModule '.length))
      .filter((name) => builtinModules.includes(name) && !name.startsWith('_'));
    const listed = new Set(preloadList(CLI));
    expect(loaded.filter((name) => !listed.has(name))).toEqual([]);
  });
});
