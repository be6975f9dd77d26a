/**
 * Context governance benchmarks (issue 5 §5):
 * - `context.governance_ms_per_call_5000`: every layer before one model call (tool-result
 *   budget, snip, microcompact, token count, threshold checks) on a 5,000-message history, in
 *   the steady state of a session: the governor has seen the history before, and each call adds
 *   one tool round (an assistant message and its result), as the loop does.
 * - `context.governance_ratio_5000_vs_500`: the same at 500 messages; <= 12 means linear.
 *
 * No compaction request is made (the reported usage stays under the threshold): the figure is
 * the governor's own cost, not a model's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EMPTY } from 'rxjs';
import { createContextGovernor } from '../src/context/createContextGovernor.js';
import type { ContextGovernor, GovernorDecision } from '../src/loop/seams.js';
import type { ContentBlock, MessageParam } from '../src/protocol/content.js';
import type { BenchModule, Figures } from './figures.js';
import { measureInterleaved, seededRandom } from './harness.js';

const ROUNDS_PER_TURN = 10;

interface Session {
  history: MessageParam[];
  next: number;
  readonly governor: ContextGovernor;
  readonly random: () => number;
}

function round(i: number, random: () => number): MessageParam[] {
  const id = `toolu_${i}`;
  const name = i % 3 === 0 ? 'Bash' : 'Read';
  const assistant: ContentBlock[] = [
    { type: 'text', text: `Step ${i}: looking at the next file to see how the parser handles this case.` },
    { type: 'tool_use', id, name, input: { file_path: `/work/src/file${i}.ts`, limit: 200 } },
  ];
  // Mostly ordinary results, now and then one over the Bash limit (stored aside by layer 0).
  const size = i % 97 === 0 ? 40_000 : 300 + Math.floor(random() * 3_000);
  return [
    { role: 'assistant', content: assistant },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'x'.repeat(size) }] },
  ];
}

function buildHistory(messages: number, random: () => number): { history: MessageParam[]; next: number } {
  const history: MessageParam[] = [];
  let i = 0;
  while (history.length < messages) {
    if (i % ROUNDS_PER_TURN === 0) {
      if (history.length > 0) history.push({ role: 'assistant', content: [{ type: 'text', text: `Done with part ${i}.` }] });
      history.push({ role: 'user', content: `Part ${i}: continue with the next module.` });
    }
    history.push(...round(i, random));
    i++;
  }
  return { history, next: i };
}

function createSession(messages: number, dir: string): Session {
  const random = seededRandom(messages);
  const { history, next } = buildHistory(messages, random);
  const governor = createContextGovernor({
    // Never called: the usage below stays under the threshold. A client that sends nothing.
    client: { stream: () => EMPTY },
    sessionDir: join(dir, `s${messages}`),
    tools: [{ name: 'Bash', maxResultSizeChars: 30_000 }, { name: 'Read' }],
    snip: { maxTurns: 200 },
    microcompact: { keepRecentRounds: 40 },
  });
  return { history, next, governor, random };
}

/** One call as the loop makes it: add a round, govern, take the decision (synchronously). */
function governOnce(session: Session): GovernorDecision {
  session.history = [...session.history, ...round(session.next++, session.random)];
  let decision: GovernorDecision | undefined;
  session.governor
    .beforeCall({
      messages: session.history,
      model: 'claude-sonnet-4-5',
      maxOutputTokens: 32_000,
      lastUsage: { input_tokens: 60_000, output_tokens: 200 },
      messagesSinceUsage: session.history.length - 1,
      signal: new AbortController().signal,
      chainId: 'bench',
      depth: 0,
    })
    .subscribe((d) => (decision = d));
  if (decision?.type !== 'ok') throw new Error(`governance bench: expected an ok decision, got ${decision?.type}`);
  return decision;
}

export const contextBench: BenchModule = {
  name: 'context',
  async run(): Promise<Figures> {
    const dir = mkdtempSync(join(tmpdir(), 'rxagent-context-bench-'));
    try {
      const small = createSession(500, dir);
      const large = createSession(5_000, dir);
      // The first call of a governor examines every message once; the figure is the steady state.
      governOnce(small);
      governOnce(large);
      const timings = await measureInterleaved(
        { small: () => governOnce(small), large: () => governOnce(large) },
        { warmup: 10, rounds: 60 },
      );
      return {
        'context.governance_ms_per_call_5000': { value: timings.large.wall.median, unit: 'ms' },
        'context.governance_ratio_5000_vs_500': {
          value: timings.large.cpu.median / Math.max(timings.small.cpu.median, 1e-3),
          unit: 'x',
          target: '<= 12',
        },
      };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
