/**
 * Regression (found by bench/load.bench.ts): more than 10 responses open at once made node warn
 * "MaxListenersExceededWarning: Possible EventTarget memory leak" about the server's closing
 * signal, which holds one listener per open response by design.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startScriptedServer, type ScriptedServer } from '../../src/testing/scriptedServer.js';

let server: ScriptedServer | undefined;
afterEach(async () => server?.close());

describe('scripted server under concurrency', () => {
  it('serves 30 responses open at once without a listener-leak warning', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      server = await startScriptedServer({ script: () => ({ kind: 'stall' }) });
      const body = JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'x' }] });
      const controller = new AbortController();
      const requests = Array.from({ length: 30 }, () =>
        fetch(`${server!.baseURL}/v1/messages`, { method: 'POST', body, headers: { 'content-type': 'application/json' }, signal: controller.signal }).catch(() => undefined),
      );
      await server.waitForRequests(30);
      controller.abort();
      await Promise.all(requests);
      await new Promise((resolve) => setImmediate(resolve)); // warnings are emitted on the next tick
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
      expect(server.requests).toHaveLength(30);
    } finally {
      process.off('warning', onWarning);
    }
  });
});
