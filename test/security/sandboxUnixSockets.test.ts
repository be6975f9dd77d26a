/**
 * Unix sockets from inside the sandbox. bubblewrap's read-only mounts do not stop `connect()`
 * to a socket file (the user's session bus, docker.sock, a database, one in the workspace), so on
 * main a sandboxed command talked to a server on the host. The seccomp filter refuses new Unix
 * sockets; this is checked through the real command against a real server of the test's, and the
 * filter's program is run on a small classic-BPF interpreter for every architecture it covers.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSandbox } from '../../src/sandbox/createSandbox.js';
import { unixSocketFilter } from '../../src/sandbox/seccompFilter.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { assertBuilt, makeSandbox, parseLines, removeSandboxes, runAgainst } from '../cli/helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const probe = createSandbox({ platform: process.platform, roots: ['/'] });
const haveSandbox = probe.status.kind === 'bwrap' && unixSocketFilter() !== undefined;
if (!haveSandbox) console.warn('Unix socket sandbox tests skipped: no bubblewrap sandbox or no filter for this architecture here');

const done: ScriptedResponse = { kind: 'message', blocks: [{ type: 'text', text: 'done' }] };

/** A server on a socket file in the workspace, counting who got through. */
async function hostSocket(path: string): Promise<{ server: Server; connections: () => number }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.end('HOST-SIDE-SECRET\n');
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  return { server, connections: () => connections };
}

describe.runIf(haveSandbox).concurrent('a sandboxed command cannot connect to a Unix socket on the host', () => {
  const runs = [
    { mode: 'bypassPermissions', extra: [] as string[] },
    { mode: 'default', extra: ['--allowedTools', 'Bash'] },
    { mode: 'acceptEdits', extra: ['--allowedTools', 'Bash'] },
    // Session 7: with the network proxy too (its bridge no longer needs a Unix socket).
    { mode: 'bypassPermissions', extra: [], allowedDomains: ['*'] },
    { mode: 'default', extra: ['--allowedTools', 'Bash'], allowedDomains: ['registry.npmjs.org'] },
  ];
  for (const { mode, extra, allowedDomains } of runs) {
    test(`${mode}${extra.length ? ' with Bash allowed' : ''}${allowedDomains ? ` and allowedDomains ${JSON.stringify(allowedDomains)}` : ''}`, async () => {
      const box = makeSandbox({ 'notes.txt': 'keep\n' });
      if (allowedDomains) {
        mkdirSync(join(box.home, '.rxagent'), { recursive: true });
        writeFileSync(join(box.home, '.rxagent', 'settings.json'), JSON.stringify({ sandbox: { network: { allowedDomains } } }));
      }
      const socketPath = join(box.cwd, 'host.sock');
      const host = await hostSocket(socketPath);
      try {
        const connect = `const s = require('net').connect(${JSON.stringify(socketPath)}); s.on('data', (d) => console.log('GOT', String(d).trim())); s.on('error', (e) => console.log('REFUSED', e.code));`;
        // The control: TCP inside the sandbox's own network namespace and child processes (whose
        // pipes are socketpairs) still work.
        const control = `const net = require('net'); const t = net.createServer().listen(0, '127.0.0.1', () => { console.log('TCP-OK'); t.close(); }); console.log(require('child_process').execFileSync('echo', ['CHILD-OK']).toString().trim());`;
        const calls: ScriptedResponse = {
          kind: 'message',
          blocks: [
            { type: 'tool_use', id: 'toolu_node', name: 'Bash', input: { command: `node -e ${JSON.stringify(connect)}` } },
            { type: 'tool_use', id: 'toolu_python', name: 'Bash', input: { command: `python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect("host.sock"); print(s.recv(64))' 2>&1 || true` } },
            { type: 'tool_use', id: 'toolu_control', name: 'Bash', input: { command: `node -e ${JSON.stringify(control)}` } },
          ],
        };
        const run = await runAgainst([calls, done], ['-p', 'go', '--output-format', 'json', '--permission-mode', mode, ...extra], box);
        expect(run.code, run.stderr).toBe(0);
        expect(parseLines(run.stdout)).toHaveLength(1);
        const sent = run.server.requests.map((r) => r.rawBody).join('\n');
        expect(host.connections(), 'the host server was reached').toBe(0);
        expect(sent.includes('HOST-SIDE-SECRET')).toBe(false);
        expect(sent).toContain('REFUSED EPERM');
        expect(sent).toMatch(/TCP-OK/);
        expect(sent).toMatch(/CHILD-OK/);
      } finally {
        await new Promise((resolve) => host.server.close(resolve));
      }
      expect(existsSync(socketPath)).toBe(false);
    }, 120_000);
  }
});

/* A classic BPF interpreter for what the filter uses: absolute word loads, jeq/jge, ret. */
interface Syscall {
  readonly arch: number;
  readonly nr: number;
  readonly arg0?: number;
}
function runFilter(program: Uint8Array, call: Syscall): 'allow' | 'eperm' | number {
  const view = new DataView(program.buffer, program.byteOffset, program.byteLength);
  const data = new DataView(new ArrayBuffer(64));
  data.setUint32(0, call.nr >>> 0, true);
  data.setUint32(4, call.arch >>> 0, true);
  data.setUint32(16, (call.arg0 ?? 0) >>> 0, true);
  let acc = 0;
  for (let pc = 0, steps = 0; pc * 8 < program.byteLength && steps < 1000; pc++, steps++) {
    const op = view.getUint16(pc * 8, true);
    const jt = view.getUint8(pc * 8 + 2);
    const jf = view.getUint8(pc * 8 + 3);
    const k = view.getUint32(pc * 8 + 4, true);
    if (op === 0x20) acc = data.getUint32(k, true);
    else if (op === 0x15) pc += acc === k ? jt : jf;
    else if (op === 0x35) pc += acc >= k ? jt : jf;
    else if (op === 0x06) return k === 0x7fff0000 ? 'allow' : k === 0x00050001 ? 'eperm' : k;
    else throw new Error(`opcode ${op} at ${pc}`);
  }
  throw new Error('the filter ran off its end');
}

describe('the filter program, instruction by instruction', () => {
  const X86_64 = 0xc000003e;
  const I386 = 0x40000003;
  const AARCH64 = 0xc00000b7;
  const ARM = 0x40000028;
  const AF_UNIX = 1;
  const AF_INET = 2;
  test.each<[label: string, arch: string, call: Syscall, verdict: 'allow' | 'eperm']>([
    ['x86-64 socket(AF_UNIX)', 'x64', { arch: X86_64, nr: 41, arg0: AF_UNIX }, 'eperm'],
    ['x86-64 socket(AF_INET)', 'x64', { arch: X86_64, nr: 41, arg0: AF_INET }, 'allow'],
    ['x86-64 socketpair(AF_UNIX)', 'x64', { arch: X86_64, nr: 53, arg0: AF_UNIX }, 'allow'],
    ['x86-64 connect', 'x64', { arch: X86_64, nr: 42, arg0: 3 }, 'allow'],
    ['x86-64 read', 'x64', { arch: X86_64, nr: 0 }, 'allow'],
    ['x86-64 io_uring_setup', 'x64', { arch: X86_64, nr: 425 }, 'eperm'],
    ['x32 socket', 'x64', { arch: X86_64, nr: 0x40000000 + 41, arg0: AF_INET }, 'eperm'],
    ['i386 socketcall(SYS_SOCKET)', 'x64', { arch: I386, nr: 102, arg0: 1 }, 'eperm'],
    ['i386 socketcall(SYS_CONNECT)', 'x64', { arch: I386, nr: 102, arg0: 3 }, 'allow'],
    ['i386 socket(AF_UNIX)', 'x64', { arch: I386, nr: 359, arg0: AF_UNIX }, 'eperm'],
    ['i386 socket(AF_INET)', 'x64', { arch: I386, nr: 359, arg0: AF_INET }, 'allow'],
    ['i386 io_uring_setup', 'x64', { arch: I386, nr: 425 }, 'eperm'],
    ['an architecture not listed, on x86-64', 'x64', { arch: AARCH64, nr: 198, arg0: AF_INET }, 'eperm'],
    ['aarch64 socket(AF_UNIX)', 'arm64', { arch: AARCH64, nr: 198, arg0: AF_UNIX }, 'eperm'],
    ['aarch64 socket(AF_INET6)', 'arm64', { arch: AARCH64, nr: 198, arg0: 10 }, 'allow'],
    ['aarch64 socketpair', 'arm64', { arch: AARCH64, nr: 199, arg0: AF_UNIX }, 'allow'],
    ['aarch64 io_uring_setup', 'arm64', { arch: AARCH64, nr: 425 }, 'eperm'],
    ['arm socket(AF_UNIX)', 'arm64', { arch: ARM, nr: 281, arg0: AF_UNIX }, 'eperm'],
    ['arm socket(AF_INET)', 'arm64', { arch: ARM, nr: 281, arg0: AF_INET }, 'allow'],
  ])('%s → %s', (_label, arch, call, verdict) => {
    const program = unixSocketFilter(arch);
    expect(program).toBeDefined();
    expect(runFilter(program!, call)).toBe(verdict);
  });

  test('where no filter is written, the sandbox says so once at start', () => {
    expect(unixSocketFilter('riscv64')).toBeUndefined();
    const sandbox = createSandbox({ platform: process.platform, roots: ['/'], arch: 'riscv64' });
    if (sandbox.status.kind === 'bwrap') expect(sandbox.notes.join('\n')).toMatch(/Unix sockets .* stay reachable .* riscv64/);
    else expect(sandbox.notes).toEqual([]);
  });
});
