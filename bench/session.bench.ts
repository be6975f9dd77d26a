/**
 * Session benchmarks (issue 6 §5):
 * - `session.resume_ms_10000`: resume a 10,000-message session (take the lock, read the file,
 *   parse and check every line, rebuild the view, release). Target <= 300 ms.
 * - `session.resume_cpu_ms_10000`: the CPU time of those resumes (wall time on a loaded machine
 *   is mostly waiting for a core).
 * - `session.append_us_per_message`: one message per `append`, durable (write + fdatasync) as
 *   the loop does it before each model request.
 * - `session.append_nosync_us_per_message`: the same without fdatasync, to show what the sync costs.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ContentBlock } from '../src/protocol/content.js';
import { createJsonlSessionStore } from '../src/session/jsonlSessionStore.js';
import type { SessionRecord } from '../src/session/records.js';
import { resume } from '../src/session/sessions.js';
import type { BenchModule, Figures } from './figures.js';
import { measureInterleaved, median, seededRandom } from './harness.js';

const MESSAGES = 10_000;
const WORKSPACE = '/bench/workspace';

/** A realistic coding session: assistant text + a tool call, answered by a tool result. */
export function sessionRecords(sessionId: string, count: number, random: () => number): SessionRecord[] {
  const records: SessionRecord[] = [];
  let parentUuid: string | null = null;
  const words = ['read', 'the', 'file', 'then', 'edit', 'function', 'const', 'return', 'tests', 'pass', 'résumé', '"quoted"'];
  const sentence = (n: number) => Array.from({ length: n }, () => words[Math.floor(random() * words.length)]).join(' ');
  for (let i = 0; i < count; i++) {
    const uuid = `00000000-0000-4000-8000-${i.toString(16).padStart(12, '0')}`;
    const base = { uuid, parentUuid, sessionId, timestamp: new Date(1_767_225_600_000 + i * 1000).toISOString(), cwd: WORKSPACE, version: 'bench' };
    parentUuid = uuid;
    if (i === 0) {
      records.push({ ...base, type: 'user', message: { role: 'user', content: sentence(30) }, reason: 'prompt' });
    } else if (i % 2 === 1) {
      // The last message closes the turn (no tool call), so resuming needs no repair.
      const content: ContentBlock[] = [{ type: 'text', text: sentence(20 + Math.floor(random() * 60)) }];
      if (i < count - 1) {
        content.push({ type: 'tool_use', id: `toolu_${i}`, name: 'Read', input: { file_path: `/bench/workspace/src/file${i}.ts`, limit: 200 } });
      }
      records.push({
        ...base,
        type: 'assistant',
        message: { role: 'assistant', content },
        messageId: `msg_${i}`,
        model: 'claude-bench',
        stopReason: i < count - 1 ? 'tool_use' : 'end_turn',
        usage: { input_tokens: 1000 + i, output_tokens: 80 },
      });
    } else {
      const content: ContentBlock[] = [{ type: 'tool_result', tool_use_id: `toolu_${i - 1}`, content: sentence(40 + Math.floor(random() * 150)) }];
      records.push({ ...base, type: 'user', message: { role: 'user', content }, reason: 'tool_results' });
    }
  }
  return records;
}

async function appendCostUs(dir: string, durability: 'fsync' | 'none', count: number): Promise<number> {
  const store = createJsonlSessionStore({ dir, workspace: WORKSPACE, durability });
  const sessionId = `append-${durability}`;
  const records = sessionRecords(sessionId, count, seededRandom(7));
  const writer = await store.open(sessionId, { mode: 'create' });
  const start = process.hrtime.bigint();
  for (const record of records) await writer.append([record]);
  const elapsedUs = Number(process.hrtime.bigint() - start) / 1e3;
  await writer.close();
  return elapsedUs / count;
}

export const sessionBench: BenchModule = {
  name: 'session',
  async run(): Promise<Figures> {
    const dir = await mkdtemp(join(tmpdir(), 'rxagent-session-bench-'));
    try {
      const store = createJsonlSessionStore({ dir, workspace: WORKSPACE, durability: 'none' });
      const writer = await store.open('resume-10000', { mode: 'create' });
      const records = sessionRecords('resume-10000', MESSAGES, seededRandom(42));
      for (let i = 0; i < records.length; i += 500) await writer.append(records.slice(i, i + 500));
      await writer.close();

      let resumedMessages = 0;
      const cpuMs: number[] = [];
      const { resume: timing } = await measureInterleaved(
        {
          resume: async () => {
            const cpu = process.cpuUsage();
            const session = await resume(store, 'resume-10000');
            resumedMessages = session.messages.length;
            await session.close();
            const used = process.cpuUsage(cpu);
            cpuMs.push((used.user + used.system) / 1000);
          },
        },
        { warmup: 2, rounds: 9 },
      );
      if (resumedMessages !== MESSAGES) throw new Error(`resume returned ${resumedMessages} messages, expected ${MESSAGES}`);

      const appendUs = await appendCostUs(dir, 'fsync', 300);
      const appendNoSyncUs = await appendCostUs(dir, 'none', 3000);
      return {
        'session.resume_ms_10000': { value: timing.wall.median, unit: 'ms', target: '<= 300' },
        // CPU time of the same resumes: what the wall time would be on an idle machine.
        'session.resume_cpu_ms_10000': { value: median(cpuMs.slice(2)), unit: 'ms' },
        'session.append_us_per_message': { value: appendUs, unit: 'us' },
        'session.append_nosync_us_per_message': { value: appendNoSyncUs, unit: 'us' },
      };
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  },
};
