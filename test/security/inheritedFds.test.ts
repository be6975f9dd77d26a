/**
 * No descriptor rxagent inherited reaches a sandboxed command. libuv leaves every descriptor a
 * process inherited without close-on-exec open in what it spawns, and bwrap passes its own on
 * to the command: a parent (an IDE, an SDK host, a shell script) that leaked a descriptor of a
 * host directory into rxagent handed the sandbox a way out, since `/proc/self/fd/N` of a
 * directory opened outside is the host's writable mount, not the sandbox's read-only view.
 * The launcher (bwrap.ts) now closes everything above stderr before the command runs.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSandbox } from '../../src/sandbox/createSandbox.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { assertBuilt, CLI, makeSandbox, removeSandboxes } from '../cli/helpers.js';

const haveSandbox = createSandbox({ platform: process.platform, roots: ['/'] }).status.kind === 'bwrap';
beforeAll(assertBuilt);
afterAll(removeSandboxes);

describe.runIf(haveSandbox)('descriptors rxagent inherited stay out of the sandbox', () => {
  test.each([
    ['no network', []],
    ['through the proxy', ['--settings', JSON.stringify({ sandbox: { network: { allowedDomains: ['example.test'] } } })]],
  ] as const)('%s: a host directory rxagent holds as fd 60 cannot be written through', async (_name, extra) => {
    const box = makeSandbox({ 'notes.txt': 'keep\n' });
    const outside = join(box.cwd, '..', 'outside-fd');
    mkdirSync(outside);
    const command = 'for n in 60; do echo pwned > /proc/self/fd/$n/pwned-$n; done; ls /proc/self/fd';
    const server = await startScriptedServer({
      script: [
        { kind: 'message', blocks: [{ type: 'tool_use', id: 'toolu_fd', name: 'Bash', input: { command } }] },
        { kind: 'message', blocks: [{ type: 'text', text: 'done' }] },
      ],
    });
    const dir = openSync(outside, 'r');
    try {
      // fd 60: clear of the fds rxagent spawns with (3-6) and of those Node opens for itself.
      const stdio: Array<'ignore' | 'pipe' | number> = ['ignore', 'pipe', 'pipe', ...Array<'ignore'>(57).fill('ignore'), dir];
      const child = spawn(process.execPath, [CLI, '-p', 'go', '--output-format', 'json', '--permission-mode', 'bypassPermissions', ...extra], {
        cwd: box.cwd,
        env: { PATH: process.env['PATH'] ?? '', HOME: box.home, ANTHROPIC_API_KEY: 'k', ANTHROPIC_BASE_URL: server.baseURL },
        stdio,
      });
      let stderr = '';
      child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
      child.stdout!.resume();
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code, stderr).toBe(0);
      const sent = server.requests.map((r) => r.rawBody).join('\n');
      expect(sent).toMatch(/No such file or directory[^"]*\\n0\\n1\\n2\\n3\\n\[exit code 0\]/); // it ran, and saw only its stdio (3: ls's own)
      expect(existsSync(join(outside, 'pwned-60'))).toBe(false);
    } finally {
      closeSync(dir);
      await server.close();
    }
  }, 120_000);
});
