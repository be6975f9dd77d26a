/**
 * Regression (found by test/reliability/faults.property.test.ts): input submitted while the
 * terminal was on its way was accepted but never answered. The queue was settled when the
 * iteration decided to end, so a submission made after that — in the callback of an event
 * before the terminal, during the final transcript flush, or in the terminal's own callback —
 * stayed queued forever (a `queued` event could even follow the terminal). Now the queue is
 * settled synchronously with the delivery of the terminal and later submissions are refused.
 */
import { describe, expect, it } from 'vitest';
import { lastValueFrom, tap, toArray } from 'rxjs';
import { createAgentRun, type SubmitHandle } from '../../src/loop/createAgentRun.js';
import type { LoopEvent } from '../../src/loop/types.js';
import type { TranscriptRecord, TranscriptSink } from '../../src/loop/seams.js';
import { message, syncModel, text } from './helpers.js';

const endings = (events: readonly LoopEvent[], id: string) =>
  events.filter((e) => e.type === 'command_lifecycle' && e.id === id && ['completed', 'cancelled', 'discarded'].includes(e.status));

describe('submissions around the terminal', () => {
  it('a submission in the terminal callback is refused and nothing follows the terminal', async () => {
    const model = syncModel(() => message([text('done')]));
    const run = createAgentRun({ model: 'claude-sonnet-4-5', prompt: 'go', deps: { callModel: model.callModel } });
    let handle: SubmitHandle | undefined;
    const events = await lastValueFrom(
      run.events$.pipe(
        tap((e) => {
          if (e.type === 'terminal') handle = run.submit('too late');
        }),
        toArray(),
      ),
    );
    expect(handle?.accepted).toBe(false);
    expect(events.at(-1)?.type).toBe('terminal');
    expect(events.filter((e) => e.type === 'command_lifecycle')).toEqual([]);
  });

  it('a submission during the final transcript flush is answered (discarded), never left queued', async () => {
    const model = syncModel((n) => (n === 0 ? message([text('first')], { stopReason: 'max_tokens' }) : message([text('done')])));
    const handles: SubmitHandle[] = [];
    let run: ReturnType<typeof createAgentRun> | undefined;
    const sink: TranscriptSink = {
      append: async (records: readonly TranscriptRecord[]) => {
        // The final flush (it carries the last answer): the user types while it is written.
        const final = records.some((r) => r.type === 'assistant' && JSON.stringify(r.message.content).includes('"done"'));
        if (final) handles.push(run!.submit('typed during the final flush'));
        await new Promise((resolve) => setTimeout(resolve, 2));
      },
    };
    run = createAgentRun({ model: 'claude-sonnet-4-5', prompt: 'go', transcript: sink, deps: { callModel: model.callModel } });
    const events = await lastValueFrom(run.events$.pipe(toArray()));
    expect(events.at(-1)?.type).toBe('terminal');
    expect(handles).toHaveLength(1);
    // Accepted (the terminal is not out yet), so it must be answered: discarded, as the turn ended.
    expect(handles[0]!.accepted).toBe(true);
    expect(endings(events, handles[0]!.id)).toMatchObject([{ status: 'discarded' }]);
  });

  it('an early submission of a run that ends in setup is reported discarded', async () => {
    const model = syncModel(() => message([text('never asked')]));
    const run = createAgentRun({
      model: 'claude-sonnet-4-5',
      prompt: 'go',
      hooks: { userPromptSubmit: () => ({ block: 'not allowed' }) },
      deps: { callModel: model.callModel },
    });
    const early = run.submit('queued before subscribe');
    const events = await lastValueFrom(run.events$.pipe(toArray()));
    expect(events.at(-1)).toMatchObject({ type: 'terminal', reason: 'hook_stopped' });
    expect(endings(events, early.id)).toMatchObject([{ status: 'discarded' }]);
    expect(model.calls()).toBe(0);
  });
});
