/**
 * The capped event log: whatever the cap, and wherever a reader left off (a new tab, a tab that
 * reconnects after the log was folded, one that never left), the view it folds from what the log
 * gives it equals the view folded from every event, also after the snapshot's trip through JSON
 * (as it goes over SSE). The events are those of real loop runs (fake model behind callModel):
 * streamed text, tool calls, a stream retry, permission questions, two runs.
 */
import fc from 'fast-check';
import { concat, from, lastValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { agentLoop } from '../../src/loop/agentLoop.js';
import type { CallModel } from '../../src/loop/options.js';
import { EventLog, type LoggedEvent } from '../../src/serve/eventLog.js';
import type { TransportOutput } from '../../src/transport/types.js';
import { emptyView, reduceView } from '../../src/ui/reduceView.js';
import type { AgentView, ViewEvent } from '../../src/ui/types.js';
import { echoTool, eventsOf, message, runSync, text, toolUse } from '../loop/helpers.js';

/** Two runs' events, with permission questions around the tool call, as a served session logs them. */
async function sessionEvents(): Promise<ViewEvent[]> {
  const first = await runSync(
    (i) =>
      i === 0
        ? message([{ type: 'text', text: 'Let me echo that for you.', chunkSize: 3 }, toolUse('echo', { text: 'hello' }, 'toolu_1')])
        : message([{ type: 'text', text: 'It said hello.', chunkSize: 2 }]),
    { tools: [echoTool] },
  );
  const partial = eventsOf(message([text('a broken start')]), 0).slice(0, 4);
  const full = eventsOf(message([{ type: 'text', text: 'The second run answers.', chunkSize: 4 }]), 1);
  const retry: TransportOutput = { type: 'stream_retry', attempt: 1, maxRetries: 2, delayMs: 0, status: undefined, errorType: 'connection', message: 'reset' };
  const callModel: CallModel = () => concat(from(partial), from([retry]), from(full));
  const second = await lastValueFrom(agentLoop({ model: 'claude-sonnet-4-5', prompt: 'again', messages: first.terminal.messages!, deps: { callModel } }).pipe(toArray()));
  const events: ViewEvent[] = [...first.events];
  const start = events.findIndex((e) => e.type === 'tool_start');
  events.splice(start, 0, { type: 'permission_request', requestId: 'perm-1', toolUseId: 'toolu_1', toolName: 'echo', input: { text: 'hello' }, reason: 'asks' });
  events.splice(start + 1, 0, { type: 'permission_settled', requestId: 'perm-1', behavior: 'allow' });
  return [...events, ...second];
}

const at = (i: number) => 1_000 + i;

function foldAll(events: readonly ViewEvent[]): AgentView {
  return events.reduce((view, event, i) => reduceView(view, event, at(i)), emptyView());
}

/** A reader: folds what it is given (through JSON, as over the wire) and remembers the last id. */
function reader() {
  let view = emptyView();
  let lastId = 0;
  return {
    take(entries: readonly LoggedEvent[]) {
      for (const entry of JSON.parse(JSON.stringify(entries)) as LoggedEvent[]) {
        if (entry.id <= lastId) continue;
        view = reduceView(view, entry.event, entry.at);
        lastId = entry.id;
      }
    },
    get lastId() {
      return lastId;
    },
    get view() {
      return view;
    },
  };
}

const plain = (view: AgentView): unknown => JSON.parse(JSON.stringify(view));

describe('EventLog', () => {
  it('keeps at most the cap, ids go on, and a reader from any id gets the full view', async () => {
    const events = await sessionEvents();
    expect(events.length).toBeGreaterThan(40);
    const expected = plain(foldAll(events));
    for (const cap of [2, 3, 7, 16, 1_000]) {
      const log = new EventLog(cap);
      events.forEach((event, i) => log.append(at(i), event));
      expect(log.size).toBeLessThanOrEqual(cap);
      expect(log.lastEventId).toBe(events.length);
      // A reader that had everything up to `afterId` (folded from the events themselves).
      for (let afterId = 0; afterId <= events.length; afterId++) {
        const seen = events.slice(0, afterId).reduce((view, event, i) => reduceView(view, event, at(i)), emptyView());
        let view = seen;
        for (const entry of JSON.parse(JSON.stringify(log.since(afterId))) as LoggedEvent[]) view = reduceView(view, entry.event, entry.at);
        expect(plain(view), `cap ${cap}, after ${afterId}`).toEqual(expected);
      }
    }
  });

  it('with a small cap the log really is folded: a new reader starts from a snapshot', async () => {
    const events = await sessionEvents();
    const log = new EventLog(10);
    events.forEach((event, i) => log.append(at(i), event));
    const fromStart = log.since(0);
    expect(fromStart[0]!.event.type).toBe('view_snapshot');
    expect(fromStart.length).toBeLessThanOrEqual(11);
    // Caught up: nothing more; one behind: exactly the last event.
    expect(log.since(events.length)).toEqual([]);
    expect(log.since(events.length - 1).map((e) => e.id)).toEqual([events.length]);
  });

  it('property: readers that come and go while the log grows end with the full view', async () => {
    const events = await sessionEvents();
    const expected = plain(foldAll(events));
    await fc.assert(
      fc.property(fc.integer({ min: 2, max: 40 }), fc.array(fc.boolean(), { minLength: events.length, maxLength: events.length }), fc.integer({ min: 1, max: 3 }), (cap, reads, readers) => {
        const log = new EventLog(cap);
        const tabs = Array.from({ length: readers }, reader);
        events.forEach((event, i) => {
          log.append(at(i), event);
          // Each tab reads what is new when `reads` says so (else it is away), offset per tab.
          tabs.forEach((tab, t) => {
            if (reads[(i + t) % reads.length]) tab.take(log.since(tab.lastId));
          });
        });
        for (const tab of tabs) {
          tab.take(log.since(tab.lastId));
          expect(plain(tab.view)).toEqual(expected);
        }
      }),
    );
  });

  it('refuses a cap that cannot work', () => {
    expect(() => new EventLog(1)).toThrow(RangeError);
    expect(() => new EventLog(2.5)).toThrow(/whole number/);
  });
});
