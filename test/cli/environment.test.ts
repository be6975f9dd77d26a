/**
 * The environment a run gets, through the BUILT command: a settings file's `env` reaches the
 * model client, Bash and hooks; Claude Code's Bash variables set its timeouts and output cut;
 * HTTP(S)_PROXY / NO_PROXY route model requests through a real proxy on 127.0.0.1 that records
 * what it was asked (absolute-URI requests are forwarded, CONNECT tunnels refused: nothing
 * leaves loopback).
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { MessagesRequest } from '../../src/protocol/request.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import { assertBuilt, makeSandbox, removeSandboxes, runAgainst, runCli } from './helpers.js';

beforeAll(assertBuilt);
afterAll(removeSandboxes);

const text = (t: string): ScriptedResponse => ({ kind: 'message', blocks: [{ type: 'text', text: t }] });
const bash = (command: string, timeout?: number): ScriptedResponse => ({
  kind: 'message',
  blocks: [{ type: 'tool_use', name: 'Bash', input: { command, ...(timeout === undefined ? {} : { timeout }) } }],
});
/** The tool_result text the request after a tool call carries. */
const resultText = (r: { readonly body?: MessagesRequest | undefined } | undefined): string => JSON.stringify(r?.body?.messages.at(-1)?.content ?? '');

interface RecordingProxy {
  readonly url: string;
  readonly seen: string[];
  close(): Promise<void>;
}

/** A forward proxy on 127.0.0.1: forwards absolute-URI requests to 127.0.0.1 only, refuses CONNECT; records both. */
async function startProxy(): Promise<RecordingProxy> {
  const seen: string[] = [];
  const server: Server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    const target = new URL(req.url ?? '/');
    if (target.hostname !== '127.0.0.1') {
      res.writeHead(403).end('loopback only');
      return;
    }
    const upstream = httpRequest({ host: '127.0.0.1', port: target.port, path: target.pathname + target.search, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.writeHead(502).end());
    req.pipe(upstream);
  });
  server.on('connect', (req, socket) => {
    seen.push(`CONNECT ${req.url}`);
    socket.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe.concurrent('the environment of a run', () => {
  test("a settings file's env reaches Bash and hooks; BASH_MAX_OUTPUT_LENGTH from it cuts the output", async () => {
    const settings = {
      env: { FROM_SETTINGS: 'settings-value', BASH_MAX_OUTPUT_LENGTH: '60' },
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'echo "$FROM_SETTINGS" > hook-saw.txt' }] }] },
    };
    const box = makeSandbox({ '.claude/settings.json': JSON.stringify(settings) });
    const run = await runAgainst([bash('echo "bash saw $FROM_SETTINGS"; seq 1 200'), text('done')], ['-p', 'go', '--allowedTools', 'Bash', '--no-sandbox'], box);
    expect(run.code).toBe(0);
    const result = resultText(run.server.requests[1]);
    expect(result).toContain('bash saw settings-value');
    expect(result).toMatch(/Output cut: \d+ more characters/);
    expect(readFileSync(join(box.cwd, 'hook-saw.txt'), 'utf8')).toBe('settings-value\n');
  });

  test('BASH_DEFAULT_TIMEOUT_MS is the timeout of a call without one; BASH_MAX_TIMEOUT_MS bounds the schema and the calls', async () => {
    const box = makeSandbox();
    const env = { BASH_DEFAULT_TIMEOUT_MS: '1000', BASH_MAX_TIMEOUT_MS: '3000' };
    const run = await runAgainst([bash('sleep 30'), bash('true', 5000), text('done')], ['-p', 'go', '--allowedTools', 'Bash', '--no-sandbox'], { ...box, env });
    expect(run.code).toBe(0);
    const tool = run.server.requests[0]!.body!.tools!.find((t) => t.name === 'Bash') as unknown as { input_schema: { properties: { timeout: { maximum: number } } } };
    expect(tool.input_schema.properties.timeout.maximum).toBe(3000);
    expect(resultText(run.server.requests[1])).toContain('timed out after 1000 ms');
    expect(resultText(run.server.requests[2])).toMatch(/timeout/i);
    expect(resultText(run.server.requests[2])).toContain('is_error');

    const bad = await runAgainst([text('never')], ['-p', 'go'], { ...box, env: { BASH_MAX_OUTPUT_LENGTH: 'lots' } });
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("BASH_MAX_OUTPUT_LENGTH must be a positive whole number (got 'lots')");
  });

  test('HTTP_PROXY (here from settings env) sends model requests through the proxy; NO_PROXY sends them directly', async () => {
    const proxy = await startProxy();
    const server = await startScriptedServer({ script: [text('via proxy'), text('direct')] });
    try {
      const box = makeSandbox({ '.claude/settings.json': JSON.stringify({ env: { HTTP_PROXY: proxy.url } }) });
      const via = await runCli(['-p', 'hi'], { ...box, baseURL: server.baseURL });
      expect(via.stdout).toBe('via proxy\n');
      expect(proxy.seen).toEqual([`POST ${server.baseURL}/v1/messages`]);

      const direct = await runCli(['-p', 'hi'], { ...box, baseURL: server.baseURL, env: { NO_PROXY: '127.0.0.1' } });
      expect(direct.stdout).toBe('direct\n');
      expect(proxy.seen).toHaveLength(1);
      expect(server.requests).toHaveLength(2);
    } finally {
      await Promise.all([proxy.close(), server.close()]);
    }
  });

  test('HTTPS_PROXY: an https base URL is reached through a CONNECT tunnel the proxy is asked for', async () => {
    const proxy = await startProxy();
    try {
      const box = makeSandbox();
      const run = await runCli(['-p', 'hi'], { ...box, baseURL: 'https://127.0.0.1:9/', env: { HTTPS_PROXY: proxy.url, RXAGENT_MAX_RETRIES: '0' } });
      expect(run.code).toBe(1);
      expect(proxy.seen).toEqual(['CONNECT 127.0.0.1:9']);
    } finally {
      await proxy.close();
    }
  });
});
