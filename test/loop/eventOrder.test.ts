/**
 * The loop's event order, pinned: the grid of eventOrderGrid.ts (every scenario; abort,
 * interrupt, queued input and unsubscribe at every event index) gives, per scenario and action,
 * the same traces as the tree the fixture was recorded from. The fixture holds one sha256 per
 * scenario and action (the traces themselves are ~170 MB of JSON); to see a difference, record
 * the old tree's traces and diff them against these.
 *
 * The fixture was recorded from the build of `bc42fde` (before the iteration's fast paths:
 * the preflight with the default governor, a decision that asks no hook, no early-write
 * await without a transcript, no fallback stage without a fallback model):
 *   EVENT_ORDER_RECORD_FROM=/path/to/old/dist npx vitest run test/loop/eventOrder.test.ts
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { agentLoop } from '../../src/loop/agentLoop.js';
import { passThroughGovernor } from '../../src/loop/seams.js';
import { scriptedMessageToEvents } from '../../src/testing/encodeScript.js';
import { defineTool } from '../../src/tools/defineTool.js';
import { ACTIONS, eventCount, scenarioName, scenarios, scenarioTraces, type LoopParts } from './eventOrderGrid.js';

const FIXTURE = fileURLToPath(new URL('../fixtures/loop-event-order.json', import.meta.url));
const recordFrom = process.env.EVENT_ORDER_RECORD_FROM;

async function partsOf(dist: string | undefined): Promise<LoopParts> {
  if (dist === undefined) return { agentLoop, defineTool, scriptedMessageToEvents, passThroughGovernor } as unknown as LoopParts;
  const load = (path: string) => import(/* @vite-ignore */ `${dist}/src/${path}`);
  return {
    agentLoop: (await load('loop/agentLoop.js')).agentLoop,
    defineTool: (await load('tools/defineTool.js')).defineTool,
    scriptedMessageToEvents: (await load('testing/encodeScript.js')).scriptedMessageToEvents,
    passThroughGovernor: (await load('loop/seams.js')).passThroughGovernor,
  };
}

const digest = (value: unknown): string => createHash('sha256').update(JSON.stringify(value)).digest('hex');

describe('the loop event order', () => {
  it('is the recorded one for every scenario, action and event index; the default governor and an equal one give the same', async () => {
    const parts = await partsOf(recordFrom);
    const digests: Record<string, string> = {};
    for (const scenario of scenarios()) {
      const traces = await scenarioTraces(parts, scenario);
      const plain = traces[0]!.trace;
      // Not vacuous: the plain run ends with its terminal, and every index was acted at.
      expect(plain.at(-1)).toBe('complete');
      expect((plain.at(-2) as { type?: string }).type).toBe('terminal');
      for (const action of ['none', ...ACTIONS] as const) {
        const ofAction = traces.filter((t) => t.action === action);
        expect(ofAction).toHaveLength(action === 'none' ? 1 : eventCount(plain));
        digests[`${scenarioName(scenario)} ${action}`] = digest(ofAction);
      }
    }
    for (const [key, value] of Object.entries(digests)) {
      if (key.includes('governor:equal')) expect(digests[key.replace('governor:equal', 'governor:default')], key).toBe(value);
    }
    if (recordFrom !== undefined) {
      writeFileSync(FIXTURE, `${JSON.stringify(digests, null, 1)}\n`);
      return;
    }
    const recorded = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Record<string, string>;
    expect(Object.keys(digests).sort()).toEqual(Object.keys(recorded).sort());
    for (const [key, value] of Object.entries(digests)) expect(value, key).toBe(recorded[key]);
  });
});
