/**
 * A tree with as many children as the caps allow listens to its abort signal once per child:
 * a bounded number, so it must not trip Node's listener-leak warning (it did at 11).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { lastValueFrom, toArray } from 'rxjs';
import { TestScheduler } from 'rxjs/testing';
import { agentLoopWithSubagents } from '../../src/agents/agentTree.js';
import { defineAgent } from '../../src/agents/definitions.js';
import type { CallModel } from '../../src/loop/options.js';
import type { LoopEvent } from '../../src/loop/types.js';
import type { TransportOutput } from '../../src/transport/types.js';
import { replyMarble } from '../../src/testing/index.js';
import { message, text, toolUse } from '../loop/helpers.js';

const warnings: Error[] = [];
const onWarning = (warning: Error) => warnings.push(warning);
afterEach(() => {
  process.off('warning', onWarning);
  warnings.length = 0;
});

describe('the agent tree and its abort signal', () => {
  it('ten background children at once give no MaxListenersExceededWarning', async () => {
    process.on('warning', onWarning);
    const fast = defineAgent({ name: 'fast', description: 'quick', prompt: 'FAST' });
    const burst = Array.from({ length: 10 }, (_, i) =>
      toolUse('Agent', { description: 'job', prompt: `do ${i}`, subagent_type: 'fast', run_in_background: true }, `t${i}`),
    );
    let events: LoopEvent[] = [];
    new TestScheduler((a, b) => expect(a).toEqual(b)).run(({ cold, flush }) => {
      let parentCalls = 0;
      const callModel: CallModel = (request) => {
        const child = request.system === 'FAST';
        const msg = child ? message([text('done')]) : parentCalls++ === 0 ? message(burst) : message([text('all done')]);
        const { marbles, values } = replyMarble(msg, { frame: 0, start: child ? 5 : 0 });
        return cold<TransportOutput>(marbles, values);
      };
      const tree$ = agentLoopWithSubagents({ model: 'claude-sonnet-4-5', system: 'PARENT', prompt: 'go', agents: { definitions: [fast] }, deps: { callModel } });
      void lastValueFrom(tree$.pipe(toArray())).then((all) => (events = all));
      flush();
    });
    // Node emits the warning on the next tick: let it.
    await new Promise((resolve) => setImmediate(resolve));
    expect(events.at(-1)).toMatchObject({ type: 'terminal', reason: 'completed' });
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });
});
