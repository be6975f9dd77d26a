/**
 * What the filtering proxy connects to. Before session 7, `allowedDomains: ["*"]` shared the
 * host network, so a sandboxed command reached every loopback service of the host (`rxagent
 * serve`, which has no token on loopback, a database, a dev server) and the cloud metadata
 * address. Now `*` goes through the proxy too, and the proxy refuses any loopback, private or
 * link-local destination unless that exact name or address is listed (destinationCheck.ts).
 * The rule is checked on the resolved addresses (a name pointed at 127.0.0.1 is refused too),
 * and through the built `rxagent -p` against a real loopback server of the test's.
 */
import { writeFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createSandbox } from '../../src/sandbox/createSandbox.js';
import { exactlyListed, isPublicAddress, resolveDestination } from '../../src/sandbox/destinationCheck.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { assertBuilt, makeSandbox, removeSandboxes, runAgainst } from '../cli/helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const haveSandbox = createSandbox({ platform: process.platform, roots: ['/'] }).status.kind === 'bwrap';
if (!haveSandbox) console.warn('proxy destination tests through the CLI skipped: no bubblewrap sandbox here');

describe('which addresses are public', () => {
  test.each([
    ['127.0.0.1', false], ['127.9.9.9', false], ['0.0.0.0', false], ['10.1.2.3', false], ['172.16.0.1', false], ['172.31.255.255', false],
    ['192.168.1.1', false], ['169.254.169.254', false], ['100.64.0.1', false], ['224.0.0.1', false], ['255.255.255.255', false],
    ['::1', false], ['::', false], ['fe80::1', false], ['fd00::1', false], ['::ffff:127.0.0.1', false], ['64:ff9b::7f00:1', false], ['2002:7f00:1::', false],
    ['93.184.215.14', true], ['172.32.0.1', true], ['8.8.8.8', true], ['2606:4700::1111', true], ['not-an-ip', false],
  ])('%s: %s', (address, expected) => {
    expect(isPublicAddress(address)).toBe(expected);
  });

  test('exact entries are the ones without a wildcard', () => {
    expect(exactlyListed('LocalHost.', ['localhost'])).toBe(true);
    expect(exactlyListed('db.example.com', ['*.example.com'])).toBe(false);
    expect(exactlyListed('anything', ['*'])).toBe(false);
    expect(exactlyListed('::1', ['[::1]'])).toBe(true);
  });
});

describe('which destinations the proxy connects to (resolved addresses, a resolver of the test)', () => {
  const dns = (table: Record<string, string[]>) => async (name: string) => {
    const answer = table[name];
    if (!answer) throw new Error('ENOTFOUND');
    return answer;
  };
  const resolve = dns({
    'public.example.com': ['93.184.215.14'],
    'rebind.attacker.test': ['127.0.0.1'],
    'mixed.attacker.test': ['93.184.215.14', '10.0.0.5'],
    'db.corp.test': ['10.0.0.7'],
    localhost: ['127.0.0.1', '::1'],
    'metadata.test': ['169.254.169.254'],
  });
  test.each([
    ['public.example.com', ['*'], { ok: true, address: '93.184.215.14' }],
    ['93.184.215.14', ['*'], { ok: true, address: '93.184.215.14' }],
    ['rebind.attacker.test', ['*'], /loopback, private or link-local address \(127\.0\.0\.1\)/],
    ['rebind.attacker.test', ['*.attacker.test'], /only an exact entry/],
    ['mixed.attacker.test', ['*'], /10\.0\.0\.5/],
    ['127.0.0.1', ['*'], /127\.0\.0\.1/],
    ['[::1]', ['*'], /::1/],
    ['localhost', ['*'], /loopback/],
    ['metadata.test', ['*'], /169\.254\.169\.254/],
    ['169.254.169.254', ['*'], /169\.254\.169\.254/],
    ['db.corp.test', ['*.corp.test'], /only an exact entry/],
    // Listed exactly: the user asked for it by name or address.
    ['db.corp.test', ['db.corp.test'], { ok: true, address: '10.0.0.7' }],
    ['localhost', ['localhost'], { ok: true, address: '127.0.0.1' }],
    ['127.0.0.1', ['127.0.0.1'], { ok: true, address: '127.0.0.1' }],
    ['unknown.test', ['*'], /could not be resolved/],
    ['public.example.com', ['other.test'], /not in sandbox\.network\.allowedDomains/],
  ] as const)('%s with %j', async (host, rules, expected) => {
    const got = await resolveDestination(host, rules, resolve);
    if (expected instanceof RegExp) {
      expect(got.ok).toBe(false);
      if (!got.ok) expect(got.reason).toMatch(expected);
    } else expect(got).toEqual(expected);
  });
});

describe.runIf(haveSandbox)('allowedDomains ["*"]: a sandboxed command cannot reach a loopback service of the host', () => {
  let server: Server;
  let port: number;
  const seen: string[] = [];
  beforeAll(async () => {
    // Stands for `rxagent serve` (no token on loopback) or any other host service on 127.0.0.1.
    server = createServer((req, res) => {
      seen.push(req.url ?? '');
      res.end('HOST-LOOPBACK-SERVICE');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const done: ScriptedResponse = { kind: 'message', blocks: [{ type: 'text', text: 'done' }] };
  const withSettings = (allowedDomains: string[]) => {
    const box = makeSandbox({ 'notes.txt': 'keep\n' });
    mkdirSync(join(box.home, '.rxagent'), { recursive: true });
    writeFileSync(join(box.home, '.rxagent', 'settings.json'), JSON.stringify({ sandbox: { network: { allowedDomains } } }));
    return box;
  };

  test('through the proxy (by address and by name, plain and tunnelled) and around it (no proxy, /dev/tcp)', async () => {
    const attempts = [
      `curl -sS http://127.0.0.1:${port}/by-ip; echo " exit $?"`,
      `curl -sS http://localhost:${port}/by-name; echo " exit $?"`,
      `curl -sS --proxytunnel http://localhost:${port}/tunnel; echo " exit $?"`,
      `curl -sS http://[::ffff:127.0.0.1]:${port}/mapped; echo " exit $?"`,
      `curl -sS --noproxy '*' http://127.0.0.1:${port}/direct; echo " direct exit $?"`,
      `(exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET /devtcp HTTP/1.0\\r\\n\\r\\n' >&3 && cat <&3) 2>&1; echo " devtcp exit $?"`,
    ];
    const calls: ScriptedResponse = {
      kind: 'message',
      blocks: attempts.map((command, i) => ({ type: 'tool_use' as const, id: `toolu_${i}`, name: 'Bash', input: { command } })),
    };
    const box = withSettings(['*']);
    const run = await runAgainst([calls, done], ['-p', 'go', '--output-format', 'json', '--permission-mode', 'bypassPermissions'], box);
    expect(run.code, run.stderr).toBe(0);
    const sent = run.server.requests.map((r) => r.rawBody).join('\n');
    expect(seen, 'the host service was reached').toEqual([]);
    expect(sent).not.toContain('HOST-LOOPBACK-SERVICE');
    expect(sent).toMatch(/loopback, private or link-local address/);
    expect(sent).toMatch(/direct exit 7/);
    expect(sent).toMatch(/devtcp exit 1/);
  }, 120_000);

  test('the control: listed exactly, the same service is reached', async () => {
    const calls: ScriptedResponse = {
      kind: 'message',
      blocks: [{ type: 'tool_use', id: 'toolu_0', name: 'Bash', input: { command: `curl -sS http://localhost:${port}/listed` } }],
    };
    const box = withSettings(['*', 'localhost']);
    const run = await runAgainst([calls, done], ['-p', 'go', '--output-format', 'json', '--permission-mode', 'bypassPermissions'], box);
    expect(run.code, run.stderr).toBe(0);
    expect(run.server.requests.map((r) => r.rawBody).join('\n')).toContain('HOST-LOOPBACK-SERVICE');
    expect(seen).toContain('/listed');
  }, 120_000);
});
