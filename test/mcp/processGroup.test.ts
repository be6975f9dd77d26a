/**
 * A stdio server is its own process group, and the whole group ends with it: the server behind a
 * wrapper (`sh -c`, as `npx` puts it), and a helper the server started that never reads our
 * stdin, are gone after unsubscribe and after the server crashes. With the SDK's own transport
 * (which signals only its direct child) both would survive.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { processesWith, survivorsOf, waitFor } from '../security/processes.js';
import { callTool, hold, resultOf, type Held } from './hold.js';
import { FIXTURE_SERVER } from './servers.js';

const opened: Held[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((h) => h.close()));
});

/** The fixture behind `sh -c` (not exec'd: the shell stays the parent), starting a helper. */
function wrappedServer(token: string) {
  const script = `"${process.execPath}" "${FIXTURE_SERVER}" with-helper ${token}; exit $?`;
  const held = hold({ fixture: { command: 'sh', args: ['-c', script, token] } });
  opened.push(held);
  return held;
}

/** Waits until the helper (the last process to start) is running: shell, server and helper. */
async function waitForTree(token: string): Promise<void> {
  await waitFor(() => processesWith(token).length >= 3, 'the shell, the server and its helper');
}

describe('stdio servers as process groups', () => {
  it('unsubscribing ends the wrapper, the server and the helper it started', async () => {
    const token = `rxagent-mcp-group-${randomUUID()}`;
    const held = wrappedServer(token);
    expect((await held.first).servers).toEqual([expect.objectContaining({ status: 'connected' })]);
    await waitForTree(token);
    await held.close();
    expect(await survivorsOf(token)).toEqual([]);
  });

  it('a server that crashes takes its helper with it, and is reported failed', async () => {
    const token = `rxagent-mcp-group-${randomUUID()}`;
    const held = wrappedServer(token);
    const tools = await held.first;
    await waitForTree(token);
    const failed = held.next((t) => t.servers.some((s) => s.status === 'failed'));
    expect(resultOf(await callTool(tools.tools, 'mcp__fixture__crash', {})).is_error).toBe(true);
    await failed;
    expect(await survivorsOf(token)).toEqual([]);
  });
});
