/**
 * The loop's event order under everything a consumer can do mid-run, as a grid: for each
 * scenario (a model script, sync or async tools and model, hooks, a transcript, the default or
 * an equal hand-made governor), one plain run, then one run per event index for each action
 * taken from inside the consumer's `next` at that event: abort the signal, submit an interrupt,
 * submit queued input, unsubscribe. A trace is every event (tool durations blanked: they read
 * the real clock), every transcript append and how the stream ended.
 *
 * The loop's parts come in as `LoopParts`, so the same grid runs over the sources (the test) and
 * over a built `dist` of another tree (recording the fixture: see eventOrder.test.ts).
 * Ids and the loop's clock are counters, so a trace is a pure function of the code's order.
 */
import { concat, defer, from, ignoreElements, Subject, Subscriber, throwError, type Observable } from 'rxjs';
import { z } from 'zod';

/** The loop's modules a grid needs (from `src/` or from a build). */
export interface LoopParts {
  readonly agentLoop: (options: any) => Observable<any>;
  readonly defineTool: (definition: any) => any;
  readonly scriptedMessageToEvents: (message: any, options: any) => readonly { readonly event: unknown }[];
  readonly passThroughGovernor: { beforeCall(input: any): Observable<any>; reactiveCompact(input: any): Observable<any> };
}

export type Action = 'none' | 'abort' | 'interrupt' | 'queue' | 'unsubscribe';
export const ACTIONS: readonly Action[] = ['abort', 'interrupt', 'queue', 'unsubscribe'];

export interface Scenario {
  readonly script: keyof typeof SCRIPTS;
  readonly tools: 'sync' | 'async';
  readonly model: 'sync' | 'async';
  readonly governor: 'default' | 'equal';
  readonly hooks: 'none' | 'sync' | 'async';
  readonly transcript: 'none' | 'sync' | 'async';
}

const message = (blocks: readonly unknown[]) => ({ kind: 'message' as const, blocks });
const call = (step: number) => ({ type: 'tool_use', name: 'work', input: { step } });
type Step = ReturnType<typeof message> | { readonly kind: 'error'; readonly error: unknown };

/** The n-th model call's answer. */
const SCRIPTS = {
  threeToolTurns: (n: number): Step => (n < 3 ? message([{ type: 'text', text: `turn ${n}` }, call(n)]) : message([{ type: 'text', text: 'final' }])),
  twoCallsATurn: (n: number): Step => (n < 2 ? message([call(n), call(n + 10)]) : message([{ type: 'text', text: 'end' }])),
  maxTurns: (n: number): Step => message([call(n)]),
  modelError: (n: number): Step => (n < 1 ? message([call(n)]) : { kind: 'error', error: Object.assign(new Error('boom'), { status: 500 }) }),
};

export function scenarios(): Scenario[] {
  const out: Scenario[] = [];
  for (const script of Object.keys(SCRIPTS) as (keyof typeof SCRIPTS)[])
    for (const tools of ['sync', 'async'] as const)
      for (const model of ['sync', 'async'] as const)
        for (const governor of ['default', 'equal'] as const)
          for (const [hooks, transcript] of [['none', 'none'], ['none', 'sync'], ['none', 'async'], ['sync', 'none'], ['async', 'none']] as const)
            out.push({ script, tools, model, governor, hooks, transcript });
  return out;
}

export const scenarioName = (s: Scenario): string => `${s.script} tools:${s.tools} model:${s.model} governor:${s.governor} hooks:${s.hooks} transcript:${s.transcript}`;

const nextMacrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/** One run: its trace. `at`: the index of the event the action is taken at. */
export function runTrace(parts: LoopParts, scenario: Scenario, action: Action, at: number): Promise<unknown[]> {
  const inputSchema = z.strictObject({ step: z.number() });
  const tool = parts.defineTool({
    name: 'work',
    description: 'Works',
    inputSchema,
    isConcurrencySafe: true,
    call: ({ step }: { step: number }) => (scenario.tools === 'sync' ? `done ${step}` : nextMacrotask().then(() => `done ${step}`)),
  });
  let calls = 0;
  const callModel = () =>
    defer(() => {
      const n = calls++;
      const step = SCRIPTS[scenario.script](n);
      if (step.kind === 'error') return throwError(() => step.error);
      const events = parts.scriptedMessageToEvents(step, { responseIndex: n, model: 'claude-sonnet-4-5' }).map((e) => e.event);
      return scenario.model === 'sync' ? from(events) : concat(from(nextMacrotask()).pipe(ignoreElements()), from(events));
    });
  const pass = parts.passThroughGovernor;
  // Behaves as the default governor but is not it (the preflight's general path).
  const equalGovernor = { beforeCall: (input: unknown) => pass.beforeCall(input), reactiveCompact: (input: unknown) => pass.reactiveCompact(input) };
  const hooks =
    scenario.hooks === 'none'
      ? undefined
      : scenario.hooks === 'sync'
        ? { stop: () => ({}), postToolBatch: () => ({}) }
        : { stop: async () => ({ warnings: ['checked'] }), postToolBatch: async () => ({}) };
  const trace: unknown[] = [];
  const transcript =
    scenario.transcript === 'none'
      ? undefined
      : {
          append: (records: readonly { type: string; uuid?: string }[]) => {
            trace.push({ append: records.map((r) => `${r.type}:${r.uuid ?? ''}`) });
            return scenario.transcript === 'sync' ? Promise.resolve() : nextMacrotask();
          },
        };
  let ids = 0;
  let clock = 0;
  const controller = new AbortController();
  const input$ = new Subject<{ id: string; input: string; interrupt?: boolean }>();
  return new Promise((resolve) => {
    let seen = 0;
    let over = false;
    const end = () => {
      if (!over) resolve(trace);
      over = true;
    };
    // A Subscriber of our own, so the consumer can unsubscribe at an event the loop delivers
    // while it is still being subscribed (a synchronous model).
    const consumer: Subscriber<{ type: string }> = new Subscriber<{ type: string }>({
      next: (event) => {
        trace.push(event.type === 'tool_result' ? { ...event, durationMs: 'real clock' } : event);
        if (seen++ !== at) return;
        if (action === 'abort') controller.abort();
        else if (action === 'interrupt') input$.next({ id: 'interrupting', input: 'stop that', interrupt: true });
        else if (action === 'queue') input$.next({ id: 'queued', input: 'and this' });
        else if (action === 'unsubscribe') {
          consumer.unsubscribe();
          trace.push('unsubscribed');
          // Whatever a torn-down run would still do has a macrotask to show itself.
          void nextMacrotask().then(end);
        }
      },
      error: (error: unknown) => {
        trace.push({ error: String(error) });
        end();
      },
      complete: () => {
        trace.push('complete');
        end();
      },
    });
    parts
      .agentLoop({
        model: 'claude-sonnet-4-5',
        prompt: 'go',
        tools: [tool],
        maxTurns: scenario.script === 'maxTurns' ? 3 : undefined,
        signal: controller.signal,
        input$,
        hooks,
        transcript,
        contextGovernor: scenario.governor === 'default' ? undefined : equalGovernor,
        deps: { callModel, uuid: () => `u${++ids}`, now: () => ++clock },
      })
      .subscribe(consumer);
  });
}

/** A scenario's traces: the plain run, then each action at every index of it, in that order. */
export async function scenarioTraces(parts: LoopParts, scenario: Scenario): Promise<{ readonly action: Action; readonly at: number; readonly trace: unknown[] }[]> {
  const plain = await runTrace(parts, scenario, 'none', -1);
  const out = [{ action: 'none' as Action, at: -1, trace: plain }];
  const events = eventCount(plain);
  for (const action of ACTIONS) for (let at = 0; at < events; at++) out.push({ action, at, trace: await runTrace(parts, scenario, action, at) });
  return out;
}

/** The loop events in a trace (not its transcript appends or how it ended). */
export function eventCount(trace: readonly unknown[]): number {
  return trace.filter((entry) => typeof entry === 'object' && entry !== null && 'type' in entry).length;
}
