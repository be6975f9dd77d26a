/**
 * A loopback HTTP server in its own process that replays fixed SSE bodies, for benchmarks that
 * compare clients over real HTTP: in a separate process its CPU is not charged to the client
 * being measured, and it never competes with the client for the event loop.
 *
 * `node dist/bench/sseByteServer.js <dir>`: serves `POST /<label>/v1/messages` with the bytes of
 * `<dir>/<label>.sse`, written in the chunk sizes listed in `<dir>/<label>.cuts.json`. Prints
 * `{"port":N}` on stdout once listening; exits when stdin closes (its parent is gone).
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';

const dir = process.argv[2];
if (dir === undefined) throw new Error('usage: sseByteServer <dir>');

const bodies = new Map<string, Buffer[]>();
function bodyOf(label: string): Buffer[] {
  let chunks = bodies.get(label);
  if (chunks === undefined) {
    const bytes = readFileSync(join(dir as string, `${label}.sse`));
    const cuts = JSON.parse(readFileSync(join(dir as string, `${label}.cuts.json`), 'utf8')) as number[];
    chunks = [];
    let at = 0;
    for (const size of cuts) {
      chunks.push(bytes.subarray(at, at + size));
      at += size;
    }
    bodies.set(label, chunks);
  }
  return chunks;
}

const server = createServer((req, res) => {
  const match = /^\/([\w-]+)\/v1\/messages$/.exec(req.url ?? '');
  req.resume();
  req.on('end', () => {
    if (match === null || req.method !== 'POST') {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (const chunk of bodyOf(match[1] as string)) res.write(chunk);
    res.end();
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
});
process.stdin.resume();
process.stdin.on('end', () => server.close(() => process.exit(0)));
