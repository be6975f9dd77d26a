/** The leak helper itself: it must see a leaked timer, server, socket and child process. */
import { spawn } from 'node:child_process';
import { createServer, connect } from 'node:net';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { childPids, snapshot, waitForNoLeaks } from './leaks.js';

describe('leak helper', () => {
  it('reports a timer left running, and nothing once it is cleared', async () => {
    const before = snapshot();
    const timer = setTimeout(() => undefined, 60_000);
    expect(await waitForNoLeaks(before, { timeoutMs: 20 })).toEqual(['1 more Timeout']);
    clearTimeout(timer);
    expect(await waitForNoLeaks(before)).toEqual([]);
  });

  it('reports a listening server and an open socket until they are closed', async () => {
    const before = snapshot();
    const server = createServer((socket) => socket.on('error', () => undefined));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    const socket = connect({ port: typeof address === 'object' && address ? address.port : 0, host: '127.0.0.1' });
    await once(socket, 'connect');
    const problems = await waitForNoLeaks(before, { timeoutMs: 20 });
    expect(problems.join()).toMatch(/TCPServerWrap/);
    expect(problems.join()).toMatch(/TCPSocketWrap/);
    socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    expect(await waitForNoLeaks(before)).toEqual([]);
  });

  it('reports a child process until it has exited', async () => {
    const before = snapshot();
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    await once(child, 'spawn');
    expect(childPids()).toContain(child.pid);
    const problems = await waitForNoLeaks(before, { timeoutMs: 20 });
    expect(problems.join()).toMatch(new RegExp(`child processes still running: .*${child.pid}`));
    child.kill('SIGKILL');
    await once(child, 'exit');
    expect(await waitForNoLeaks(before)).toEqual([]);
  });
});
