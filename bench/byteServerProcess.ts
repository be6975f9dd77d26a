/** Starts `sseByteServer.js` in a child process with the given fixtures (see that file for why). */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
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
  const script = fileURLToPath(new URL('./sseByteServer.js', import.meta.url));
  const child = spawn(process.execPath, [script, dir], { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`the byte server exited (${code}) before listening`)));
    createInterface({ input: child.stdout }).once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
  });
  return {
    baseURL: (label) => `http://127.0.0.1:${port}/${label}`,
    async close() {
      child.stdin.end();
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
