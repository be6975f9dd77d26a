/** The permission answer channel: questions out as events, answers back to the waiting policy. */
import { describe, expect, it } from 'vitest';
import { createPermissionChannel } from '../../src/ui/permissionChannel.js';
import type { PermissionEvent } from '../../src/ui/types.js';

const request = (signal: AbortSignal) => ({ toolName: 'Bash', input: { command: 'rm x' }, reason: 'needs approval', toolUseId: 't1', signal });

describe('createPermissionChannel', () => {
  it('announces a question, resolves it with the answer, and says it settled', async () => {
    const channel = createPermissionChannel();
    const seen: PermissionEvent[] = [];
    channel.events$.subscribe((e) => seen.push(e));
    const answer = channel.ask(request(new AbortController().signal));
    expect(seen).toEqual([{ type: 'permission_request', requestId: 'perm-1', toolUseId: 't1', toolName: 'Bash', input: { command: 'rm x' }, reason: 'needs approval' }]);
    expect(channel.answer('perm-1', { behavior: 'deny', message: 'no' })).toBe(true);
    await expect(answer).resolves.toEqual({ behavior: 'deny', message: 'no' });
    expect(seen[1]).toEqual({ type: 'permission_settled', requestId: 'perm-1', behavior: 'deny' });
    // Answered once: a second answer finds nothing.
    expect(channel.answer('perm-1', { behavior: 'allow' })).toBe(false);
    expect(channel.answer('perm-99', { behavior: 'allow' })).toBe(false);
  });

  it('a cancelled call settles as cancelled and denies; denyAll answers every waiting question', async () => {
    const channel = createPermissionChannel();
    const seen: PermissionEvent[] = [];
    channel.events$.subscribe((e) => seen.push(e));
    const controller = new AbortController();
    const first = channel.ask(request(controller.signal));
    controller.abort();
    await expect(first).resolves.toMatchObject({ behavior: 'deny' });
    expect(seen.at(-1)).toEqual({ type: 'permission_settled', requestId: 'perm-1', behavior: 'cancelled' });
    const second = channel.ask(request(new AbortController().signal));
    channel.denyAll('server stopping');
    await expect(second).resolves.toEqual({ behavior: 'deny', message: 'server stopping' });
    expect(channel.answer('perm-2', { behavior: 'allow' })).toBe(false);
  });
});
