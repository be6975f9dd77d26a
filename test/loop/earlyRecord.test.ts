/**
 * The record of a response asking for tools is appended as soon as the response is complete,
 * while its tools still run (src/loop/earlyRecord.ts), and the iteration's own write leaves it
 * out: every message is recorded exactly once, in chain order.
 */
import { describe, expect, it } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { z } from 'zod';
import { agentLoop } from '../../src/loop/agentLoop.js';
import type { TranscriptRecord } from '../../src/loop/seams.js';
import type { TerminalEvent } from '../../src/loop/types.js';
import { defineTool } from '../../src/tools/defineTool.js';
import { gate } from '../../src/testing/gate.js';
import { message, syncModel, text, toolUse } from './helpers.js';

type Recorded = { readonly type: string; readonly uuid?: string; readonly parentUuid?: string };

describe('the tool-use record is written while the tools run', () => {
  it('is on the sink before the tool returns, and is not written a second time', async () => {
    const released = gate();
    const appends: Recorded[][] = [];
    let recordsWhenToolRan: readonly Recorded[] = [];
    const slow = defineTool({
      name: 'slow',
      description: 'waits for the test',
      inputSchema: z.strictObject({}),
      isConcurrencySafe: false,
      call: async () => {
        recordsWhenToolRan = appends.flat();
        await released.promise;
        return 'done';
      },
    });
    const model = syncModel((n) => (n === 0 ? message([text('Working.'), toolUse('slow', {})]) : message([text('All done.')])));
    const sink = {
      append: async (records: readonly TranscriptRecord[]) => {
        appends.push(records.map((r) => r as Recorded));
        // The tool is released only once the record of the response that asked for it is in.
        if (records.some((r) => r.type === 'assistant')) released.open();
      },
    };
    const events = await lastValueFrom(
      agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', tools: [slow], transcript: sink, deps: { callModel: model.callModel } }).pipe(toArray()),
    );
    expect((events.at(-1) as TerminalEvent).reason).toBe('completed');
    // Nothing of this response was written when the tool started (the record follows message_stop) ...
    expect(recordsWhenToolRan.map((r) => r.type)).toEqual(['user']);
    // ... and its own append came before the results'.
    expect(appends.map((a) => a.map((r) => r.type))).toEqual([['user'], ['assistant'], ['user'], ['assistant']]);
    const all = appends.flat();
    expect(new Set(all.map((r) => r.uuid)).size).toBe(all.length);
    for (let i = 1; i < all.length; i++) expect(all[i]!.parentUuid).toBe(all[i - 1]!.uuid);
  });

  it('a response without tools is written once, at the end', async () => {
    const appends: Recorded[][] = [];
    const model = syncModel(() => message([text('Just text.')]));
    const sink = { append: async (records: readonly TranscriptRecord[]) => void appends.push(records.map((r) => r as Recorded)) };
    await lastValueFrom(agentLoop({ model: 'claude-sonnet-4-5', prompt: 'go', transcript: sink, deps: { callModel: model.callModel } }).pipe(toArray()));
    expect(appends.map((a) => a.map((r) => r.type))).toEqual([['user'], ['assistant']]);
  });
});
