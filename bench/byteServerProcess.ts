/** Starts `sseByteServer.js` in a child process with the given fixtures (see that file for why). */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnServerProcess } from './serverProcess.js';
import type { SseFixture } from './sseFixtures.js';

export interface ByteServer {
  /** The base URL under which `fixture.label`'s body is served (`<base>/v1/messages`). */
  baseURL(label: string): string;
  close(): Promise<void>;
}

export async function startByteServer(fixtures: readonly SseFixture[]): Promise<ByteServer> {
  const dir = mkdtempSync(join(tmpdir(), 'rxagent-bench-sse-'));
  for (const f of fixtures) {
    writeFileSync(join(dir, `${f.label}.sse`), f.bytes);
    writeFileSync(join(dir, `${f.label}.cuts.json`), JSON.stringify(f.chunks.map((c) => c.length)));
  }
  const server = await spawnServerProcess('sseByteServer.js', [dir]);
  return {
    baseURL: (label) => `http://127.0.0.1:${server.port}/${label}`,
    async close() {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
