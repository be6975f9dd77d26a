/**
 * Crash safety with a real process: a child appends records through the built store (dist/) and
 * is killed with SIGKILL at a random moment — between appends, in the middle of a large write, or
 * during the fsync. Whatever the moment, every append the child saw resolve is in the transcript,
 * and resuming yields a request the API would accept.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createJsonlSessionStore } from '../../src/session/jsonlSessionStore.js';
import { resume } from '../../src/session/sessions.js';
import { validateMessagesRequest } from '../../src/testing/validateRequest.js';
import { assertBuilt, killHard, spawnChild } from './childProcess.js';
import { makeTempDir, requestWith } from './helpers.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => ({ dir, cleanup } = await makeTempDir()));
afterEach(async () => cleanup());

describe('a writer killed with SIGKILL at random points', () => {
  it('always resumes into a valid request with every acknowledged record kept', async () => {
    assertBuilt();
    const store = createJsonlSessionStore({ dir, workspace: '/work/project' });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 12 }), // appends acknowledged before the kill is armed
        fc.integer({ min: 0, max: 3 }), // extra milliseconds before the kill
        fc.constantFrom(100, 20_000, 400_000), // bytes per record: big ones make torn writes likely
        async (acksBeforeKill, delayMs, padding) => {
          const sessionId = `crash-${++run}`;
          const child = spawnChild(['append', dir, '/work/project', sessionId, '40'], { PADDING: String(padding) });
          try {
            await child.waitFor(/^acked /, acksBeforeKill);
            if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
          } finally {
            await killHard(child);
          }
          const acked = child.lines.filter((l) => l.startsWith('acked ')).map((l) => l.slice('acked '.length));

          const { records, warnings } = await store.read(sessionId);
          const stored = new Set(records.map((r) => r.uuid));
          for (const uuid of acked) expect(stored.has(uuid)).toBe(true);
          // Only the one unacknowledged append may be torn; nothing in the middle is damaged.
          expect(warnings.every((w) => w.kind === 'partial_trailing_line')).toBe(true);
          if (process.env.CRASH_STATS) console.log(`acked ${acked.length} stored ${records.length} torn ${warnings.length} padding ${padding}`);

          const session = await resume(store, sessionId);
          try {
            expect(validateMessagesRequest(requestWith(session.messages))).toEqual([]);
            expect(session.messages.length).toBeGreaterThanOrEqual(Math.min(acked.length, records.length));
          } finally {
            await session.close();
          }
        },
      ),
      { numRuns: 8 },
    );
  });
});
