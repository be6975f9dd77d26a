/** The fixture server linked in-process through the SDK's InMemoryTransport (a `transport` server config). */
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { McpTransportServerConfig } from '../../src/mcp/config.js';
import { createFixtureServer } from './fixtures/fixtureServer.mjs';

export interface LinkedFixture {
  readonly config: McpTransportServerConfig;
  /** Resolves with the abort reason when the server side of a call to `name` is cancelled. */
  cancelled(name: string): Promise<unknown>;
  /** Resolves once the server received a call to `name`. */
  called(name: string): Promise<void>;
}

export function linkFixture(): LinkedFixture {
  const calls = new Map<string, { signal: AbortSignal }[]>();
  const waiting: { name: string; resolve: (extra: { signal: AbortSignal }) => void }[] = [];
  const seen = (name: string) =>
    new Promise<{ signal: AbortSignal }>((resolve) => {
      const earlier = calls.get(name)?.[0];
      if (earlier) resolve(earlier);
      else waiting.push({ name, resolve });
    });
  const config: McpTransportServerConfig = {
    type: 'transport',
    transport: () => {
      const [client, server] = InMemoryTransport.createLinkedPair();
      const fixture = createFixtureServer({
        onCall: (name, _args, extra) => {
          calls.set(name, [...(calls.get(name) ?? []), extra]);
          for (const w of waiting.filter((w) => w.name === name)) w.resolve(extra);
        },
      });
      void fixture.connect(server);
      return client;
    },
  };
  return {
    config,
    called: async (name) => void (await seen(name)),
    cancelled: async (name) => {
      const { signal } = await seen(name);
      if (signal.aborted) return signal.reason;
      return new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
    },
  };
}
