/**
 * Fault-injection property suite: random scenarios (see `scenario.ts`) against the REAL scripted
 * model server over loopback, with the real client and `agentLoop`. For every run:
 * - exactly one terminal, as the last event (unless the consumer unsubscribed first);
 * - every request the server received was valid (its validator found nothing);
 * - the session transcript resumes into a valid request;
 * - no unhandled rejection;
 * - nothing left running: no model stream subscribed, no library timer, no open response on the
 *   server side, and after closing client and server, no socket, server or child process more
 *   than before.
 * Seeded and shrinkable: `RXAGENT_FC_SEED` replays, `RXAGENT_FC_RUNS` scales (default 300).
 */
import { spawn } from 'node:child_process';
import fc from 'fast-check';
import { defer, finalize, type Observable, type Subscription } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createContextGovernor } from '../../src/context/createContextGovernor.js';
import { agentLoopWithSubagents, type AgentTreeOptions } from '../../src/agents/agentTree.js';
import { agentLoop } from '../../src/loop/agentLoop.js';
import { createAgentRun } from '../../src/loop/createAgentRun.js';
import { joinConsecutiveUsers } from '../../src/loop/messages.js';
import { validateMessagesRequest } from '../../src/testing/validateRequest.js';
import type { AgentLoopHooks } from '../../src/loop/options.js';
import type { LoopEvent, TerminalEvent } from '../../src/loop/types.js';
import { createJsonlSessionStore } from '../../src/session/jsonlSessionStore.js';
import { resume, startSession } from '../../src/session/sessions.js';
import { startScriptedServer } from '../../src/testing/scriptedServer.js';
import type { ScriptedResponse } from '../../src/testing/script.js';
import { defineTool } from '../../src/tools/defineTool.js';
import type { Tool } from '../../src/tools/types.js';
import { createMessagesClient } from '../../src/transport/createMessagesClient.js';
import type { MessagesClient } from '../../src/transport/types.js';
import { makeTempDir } from '../session/helpers.js';
import { fcParams } from './fcConfig.js';
import { snapshot, waitForNoLeaks, waitForResponsesEnded } from './leaks.js';
import { scenarioArb, toScripted, type Scenario, type SubmissionSpec } from './scenario.js';

// ---------------------------------------------------------------------------------------------
// Tools of every behaviour, with their own timers tracked (a tool that ignores its abort signal
// keeps its timer: that is the tool's, not a library leak)
// ---------------------------------------------------------------------------------------------

const toolTimers = new Set<NodeJS.Timeout>();
const toolTimerDone = new Set<Promise<void>>();

function toolSleep(ms: number, signal?: AbortSignal): Promise<void> {
  let settle!: () => void;
  const done = new Promise<void>((resolve) => (settle = resolve));
  toolTimerDone.add(done);
  const finish = (): void => {
    clearTimeout(timer);
    toolTimers.delete(timer);
    toolTimerDone.delete(done);
    settle();
  };
  const timer = setTimeout(finish, ms);
  toolTimers.add(timer);
  return new Promise<void>((resolve, reject) => {
    void done.then(() => (signal?.aborted ? reject(new Error('aborted')) : resolve()));
    signal?.addEventListener('abort', finish, { once: true });
  });
}

const input = z.strictObject({ n: z.number().optional(), value: z.string().optional() });

const tools: Tool[] = [
  defineTool({ name: 'fast_safe', description: 'Answers at once', inputSchema: input, isConcurrencySafe: true, call: () => 'fast' }),
  defineTool({
    name: 'slow_safe',
    description: 'Answers after a few ms',
    inputSchema: input,
    isConcurrencySafe: true,
    interruptBehavior: 'cancel',
    call: async (_i, { signal }) => {
      await toolSleep(8, signal);
      return 'slow';
    },
  }),
  defineTool({
    name: 'unsafe_write',
    description: 'Changes shared state',
    inputSchema: input,
    isConcurrencySafe: false,
    call: (i: { value?: string | undefined }) => ({
      type: 'outcome' as const,
      output: 'written',
      contextChange: (shared) => ({ ...shared, last: i.value }),
    }),
  }),
  defineTool({
    name: 'throws',
    description: 'Always fails',
    inputSchema: input,
    isConcurrencySafe: true,
    call: (): string => {
      throw new Error('tool exploded');
    },
  }),
  defineTool({
    name: 'hangs',
    description: 'Never answers (honours its signal)',
    inputSchema: input,
    isConcurrencySafe: false,
    timeoutMs: 25,
    call: (_i, { signal }) =>
      new Promise<string>((_resolve, reject) => {
        signal.addEventListener('abort', () => reject(new Error('hang aborted')), { once: true });
      }),
  }),
  defineTool({
    name: 'spawns',
    description: 'Runs a child process that outlives its timeout unless the signal kills it',
    inputSchema: input,
    isConcurrencySafe: true,
    interruptBehavior: 'cancel',
    timeoutMs: 30,
    call: (_i, { signal }) =>
      new Promise<string>((resolve, reject) => {
        const child = spawn('sleep', ['5'], { signal, stdio: 'ignore' });
        child.on('error', reject);
        child.on('exit', (code) => resolve(`exited ${code}`));
      }),
  }),
  defineTool({
    name: 'ignores_abort',
    description: 'Answers late and ignores its signal',
    inputSchema: input,
    isConcurrencySafe: true,
    timeoutMs: 15,
    call: async () => {
      await toolSleep(40);
      return 'late';
    },
  }),
];

function failingHooks(s: Scenario): AgentLoopHooks {
  return {
    ...(s.hooks.preToolUse
      ? {
          preToolUse: [
            (i) => {
              if (i.toolName === 'fast_safe') throw new Error('pre hook failed');
              return undefined;
            },
          ],
        }
      : {}),
    ...(s.hooks.postToolUse ? { postToolUse: [() => Promise.reject(new Error('post hook failed'))] } : {}),
    ...(s.hooks.stop ? { stop: () => Promise.reject(new Error('stop hook failed')) } : {}),
    ...(s.hooks.userPromptSubmit ? { userPromptSubmit: () => Promise.reject(new Error('prompt hook failed')) } : {}),
    ...(s.hooks.postToolBatch
      ? {
          postToolBatch: () => {
            throw new Error('batch hook failed');
          },
        }
      : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------------

/** Counts open model streams: an unsubscribed-but-running request would stay counted. */
function countingClient(client: MessagesClient, open: { n: number }): MessagesClient {
  return {
    stream: (request, options) =>
      defer(() => {
        open.n++;
        return client.stream(request, options).pipe(finalize(() => open.n--));
      }),
  };
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown): void => {
  unhandled.push(reason);
};
beforeAll(() => {
  process.on('unhandledRejection', onUnhandled);
});
afterAll(() => {
  process.off('unhandledRejection', onUnhandled);
});

let dir: string;
let cleanup: () => Promise<void>;
let runNumber = 0;
/** How runs ended, to check the generator reaches the many endings (not only `completed`). */
const reasonsSeen = new Map<string, number>();
let historiesChecked = 0;
let submissionsAccepted = 0;
beforeAll(async () => ({ dir, cleanup } = await makeTempDir('rxagent-faults-')));
afterAll(async () => cleanup());

interface Outcome {
  readonly events: LoopEvent[];
  readonly unsubscribed: boolean;
  readonly completed: boolean;
  readonly error?: unknown;
}

/** Subscribes and resolves when the loop completes, errors, or the scenario unsubscribed it. */
function play(
  loop$: Observable<LoopEvent>,
  s: Scenario,
  controller: AbortController,
  submit?: (spec: SubmissionSpec) => void,
): Promise<Outcome> {
  return new Promise((resolve) => {
    const events: LoopEvent[] = [];
    let sub: Subscription | undefined;
    let unsubscribed = false;
    let timer: NodeJS.Timeout | undefined;
    const cutOff = (): void => {
      unsubscribed = true;
      sub?.unsubscribe();
      if (timer) clearTimeout(timer);
      resolve({ events, unsubscribed, completed: false });
    };
    const abort = s.abort;
    sub = loop$.subscribe({
      next: (e) => {
        events.push(e);
        // Input arrives synchronously inside the consumer's callback: re-entrant on purpose.
        for (const spec of s.submissions) if (spec.atEvent === events.length) submit?.(spec);
        if (abort.k === 'signal_on_event' && events.length === abort.n) controller.abort();
        if (abort.k === 'unsubscribe_on_event' && events.length === abort.n && !unsubscribed) {
          // Synchronously inside next: the nastiest moment to tear down.
          queueMicrotask(cutOff);
        }
      },
      error: (error: unknown) => {
        if (timer) clearTimeout(timer);
        resolve({ events, unsubscribed, completed: false, error });
      },
      complete: () => {
        if (timer) clearTimeout(timer);
        resolve({ events, unsubscribed, completed: true });
      },
    });
    if (abort.k === 'signal_after_ms') timer = setTimeout(() => controller.abort(), abort.ms);
    if (abort.k === 'unsubscribe_after_ms') timer = setTimeout(cutOff, abort.ms);
  });
}

async function runScenario(s: Scenario): Promise<void> {
  const before = snapshot();
  let phase: 'scenario' | 'resume' = 'scenario';
  const script = (_req: unknown, played: number): ScriptedResponse | undefined => {
    if (phase === 'resume') return { kind: 'message', blocks: [{ type: 'text', text: 'resumed fine' }] };
    const spec = s.responses[played];
    return spec === undefined ? { kind: 'message', blocks: [{ type: 'text', text: 'the end' }] } : toScripted(spec, played);
  };
  const server = await startScriptedServer({ script });
  const client = createMessagesClient({
    baseURL: server.baseURL,
    apiKey: 'test-key',
    maxRetries: 2,
    retryBaseDelayMs: 1,
    retryMaxDelayMs: 4,
    idleTimeoutMs: 40,
  });
  const store = createJsonlSessionStore({ dir, workspace: '/work/project' });
  const sessionId = `run-${++runNumber}`;
  const session = await startSession(store, { sessionId });
  const open = { n: 0 };
  const controller = new AbortController();
  if (s.abort.k === 'pre_aborted') controller.abort();
  const problems: string[] = [];
  try {
    const options: AgentTreeOptions = {
      model: 'claude-sonnet-4-5',
      prompt: 'go',
      client: countingClient(client, open),
      tools,
      hooks: failingHooks(s),
      signal: controller.signal,
      transcript: session.sink,
      maxOutputTokens: 2048,
      ...(s.maxTurns !== undefined ? { maxTurns: s.maxTurns } : {}),
      ...(s.fallback ? { fallbackModel: 'claude-haiku-4-5' } : {}),
      ...(s.governor
        ? {
            contextGovernor: createContextGovernor({
              client,
              keepRecentTokens: 200,
              modelLimits: { claude: { contextWindow: 40_000, maxOutputTokens: 4_000 } },
            }),
          }
        : {}),
    };
    const run = s.tree ? undefined : createAgentRun(options);
    const loop$ = run ? run.events$ : agentLoopWithSubagents(options);
    const accepted: string[] = [];
    const outcome = await play(loop$, s, controller, (spec) => {
      if (!run) return;
      const handle = run.submit('one more thing to do', { interrupt: spec.interrupt });
      if (handle.accepted) {
        accepted.push(handle.id);
        submissionsAccepted++;
      }
    });

    // 1. Exactly one terminal, last, and the stream completed (unless unsubscribed first).
    const terminals = outcome.events.filter((e): e is TerminalEvent => e.type === 'terminal');
    const reason = outcome.unsubscribed ? 'unsubscribed' : (terminals[0]?.reason ?? 'none');
    reasonsSeen.set(reason, (reasonsSeen.get(reason) ?? 0) + 1);
    if (outcome.error !== undefined) problems.push(`the loop errored instead of a terminal: ${String(outcome.error)}`);
    if (!outcome.unsubscribed) {
      if (terminals.length !== 1) problems.push(`${terminals.length} terminals`);
      if (outcome.events[outcome.events.length - 1]?.type !== 'terminal') problems.push('the last event is not the terminal');
      if (!outcome.completed) problems.push('the loop did not complete');
    } else if (terminals.length > 1) {
      problems.push(`${terminals.length} terminals before unsubscribe`);
    }

    // 1b. The terminal's history (what a child or resumed loop starts from) forms a valid request
    //     once the next prompt is added: every tool_use answered, no dangling thinking, ...
    const history = terminals[0]?.messages;
    if (history !== undefined) {
      historiesChecked++;
      const next = joinConsecutiveUsers([...history, { role: 'user', content: 'next' }]);
      const errors = validateMessagesRequest({ model: 'claude-sonnet-4-5', max_tokens: 1024, messages: next });
      if (errors.length > 0) problems.push(`terminal history is not a valid request: ${errors.join('; ')}`);
    }

    // 1c. Nothing acknowledged is lost: a tool result the consumer saw is in the final history,
    //     unless that attempt was voided (a stream retry or a fallback's tombstone) or compaction
    //     summarized it (the transcript keeps it).
    const voided = outcome.events.some((e) => e.type === 'stream_retry' || e.type === 'tombstone' || e.type === 'compact_boundary');
    if (history !== undefined && !voided) {
      const kept = new Set(
        history.flatMap((m) => (typeof m.content === 'string' ? [] : m.content.flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])))),
      );
      for (const e of outcome.events) {
        if (e.type === 'tool_result' && !kept.has(e.toolUseId)) problems.push(`tool result ${e.toolUseId} (${e.name}) was shown but is not in the final history`);
      }
    }

    // 1d. Input is never silently dropped: each accepted submission ends exactly once.
    if (!outcome.unsubscribed) {
      for (const id of accepted) {
        const ends = outcome.events.filter(
          (e) => e.type === 'command_lifecycle' && e.id === id && (e.status === 'completed' || e.status === 'cancelled' || e.status === 'discarded'),
        );
        if (ends.length !== 1) problems.push(`submission ${id} ended ${ends.length} times`);
      }
    }

    // 2. Nothing left running right after the end: no open model stream, no library timer, no
    //    response left open on the server (the client aborted what it abandoned).
    if (open.n !== 0) problems.push(`${open.n} model streams still subscribed`);
    const openResponses = await waitForResponsesEnded(server.requests);
    if (openResponses.length > 0) problems.push(`responses still open on the server: ${openResponses.join(', ')}`);
    const timersNow = process.getActiveResourcesInfo().filter((k) => k === 'Timeout').length;
    const timersBefore = before.resources.get('Timeout') ?? 0;
    if (timersNow - toolTimers.size > timersBefore) {
      problems.push(`${timersNow - toolTimers.size - timersBefore} timers left running after the loop ended`);
    }

    // 3. The transcript resumes into a valid request.
    await session.close();
    phase = 'resume';
    const resumed = await resume(store, sessionId);
    const firstResumeRequest = server.requests.length;
    // The resumed run must complete, so its client's idle timeout is a bound on a hang, not the
    // scenario's 40 ms (which a healthy reply on a busy machine can exceed).
    const resumeClient = createMessagesClient({ baseURL: server.baseURL, apiKey: 'test-key', maxRetries: 2, retryBaseDelayMs: 1, retryMaxDelayMs: 4 });
    try {
      const again = await play(
        agentLoop({
          model: 'claude-sonnet-4-5',
          client: resumeClient,
          tools,
          messages: resumed.messages,
          prompt: 'resume and go on',
          transcript: resumed.sink,
          maxOutputTokens: 2048,
        }),
        { ...s, abort: { k: 'none' } },
        new AbortController(),
      );
      const last = again.events[again.events.length - 1];
      if (last?.type !== 'terminal' || last.reason !== 'completed') {
        problems.push(`the resumed run ended with ${last?.type === 'terminal' ? `${last.reason}: ${last.error?.message}` : 'no terminal'}`);
      }
      if (server.requests.length === firstResumeRequest) problems.push('the resumed run sent no request');
    } finally {
      await resumed.close();
      await resumeClient.close();
    }

    // 4. Every request valid, the scenario's and the resumed one.
    for (const r of server.requests) {
      if (r.validationErrors.length > 0) problems.push(`request #${r.index} invalid: ${r.validationErrors.join('; ')}`);
    }
  } finally {
    await client.close();
    await server.close();
  }

  // 5. After closing everything, the process holds no more than before (tool timers let finish).
  await Promise.all([...toolTimerDone]);
  const leaks = await waitForNoLeaks(before);
  problems.push(...leaks.map((l) => `leak: ${l}`));
  if (unhandled.length > 0) problems.push(`unhandled rejections: ${unhandled.splice(0).map(String).join('; ')}`);
  if (problems.length > 0) throw new Error(problems.join('\n'));
}

describe('agentLoop under random faults (real HTTP, scripted server)', () => {
  it('always ends with one terminal, sends only valid requests, resumes validly and leaks nothing', async () => {
    await fc.assert(fc.asyncProperty(scenarioArb, (s) => runScenario(s)), fcParams(300));
    console.info('terminal reasons over the runs:', Object.fromEntries([...reasonsSeen].sort((a, b) => b[1] - a[1])));
    console.info(`terminal histories checked: ${historiesChecked}; submissions accepted: ${submissionsAccepted}`);
    expect(historiesChecked).toBeGreaterThan(0);
    expect(submissionsAccepted).toBeGreaterThan(0);
    // A generator that drifted into one kind of ending would make every check above cheap.
    for (const reason of ['completed', 'api_error', 'aborted_streaming', 'unsubscribed', 'max_turns']) {
      expect(reasonsSeen.get(reason) ?? 0, reason).toBeGreaterThan(0);
    }
  }, 600_000);
});
