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
import { afterAll, describe, expect, it } from 'vitest';
import { agentLoop } from '../../src/loop/agentLoop.js';
import { passThroughGovernor } from '../../src/loop/seams.js';
import { scriptedMessageToEvents } from '../../src/testing/encodeScript.js';
import { defineTool } from '../../src/tools/defineTool.js';
import { ACTIONS, eventCount, scenarioName, scenarios, scenarioTraces, type Action, type LoopParts, type Scenario } from './eventOrderGrid.js';

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

const ALL_ACTIONS = ['none', ...ACTIONS] as const;
const keyOf = (scenario: Scenario, action: Action): string => `${scenarioName(scenario)} ${action}`;

// One test per scenario: each is small enough for a busy machine (the whole grid in one test
// once ran past the 120 s bound under load), and a difference names its scenario.
describe('the loop event order', () => {
  const recorded: Record<string, string> = recordFrom === undefined ? JSON.parse(readFileSync(FIXTURE, 'utf8')) : {};
  const recording: Record<string, string> = {};

  it('the fixture holds exactly one digest per scenario and action', () => {
    if (recordFrom !== undefined) return;
    const expected = scenarios().flatMap((scenario) => ALL_ACTIONS.map((action) => keyOf(scenario, action)));
    expect(Object.keys(recorded).sort()).toEqual(expected.sort());
  });

  // Each scenario's test below matches its own digests to the fixture, so an equal hand-made
  // governor giving the default's order follows from the fixture holding the same digest for both.
  it('the fixture gives the default governor and an equal one the same traces', () => {
    if (recordFrom !== undefined) return;
    const pairs = Object.keys(recorded).filter((key) => key.includes('governor:equal'));
    expect(pairs.length).toBeGreaterThan(0);
    for (const key of pairs) expect(recorded[key.replace('governor:equal', 'governor:default')], key).toBe(recorded[key]);
  });

  for (const scenario of scenarios()) {
    it(`is the recorded one at every event index: ${scenarioName(scenario)}`, async () => {
      const parts = await partsOf(recordFrom);
      const traces = await scenarioTraces(parts, scenario);
      const plain = traces[0]!.trace;
      // Not vacuous: the plain run ends with its terminal, and every index was acted at.
      expect(plain.at(-1)).toBe('complete');
      expect((plain.at(-2) as { type?: string }).type).toBe('terminal');
      for (const action of ALL_ACTIONS) {
        const ofAction = traces.filter((t) => t.action === action);
        expect(ofAction).toHaveLength(action === 'none' ? 1 : eventCount(plain));
        const key = keyOf(scenario, action);
        if (recordFrom !== undefined) recording[key] = digest(ofAction);
        else expect(digest(ofAction), key).toBe(recorded[key]);
      }
    });
  }

  afterAll(() => {
    if (recordFrom !== undefined) writeFileSync(FIXTURE, `${JSON.stringify(recording, null, 1)}\n`);
  });
});
