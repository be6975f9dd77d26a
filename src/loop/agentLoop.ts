/**
 * `agentLoop(options)`: the library's main entry point, a cold `Observable<LoopEvent>`.
 * This file holds only the `expand` composition; one iteration is `iteration`, its decisions
 * are the pure `decide*` functions, and every continue builds a new State in `transitions.ts`.
 */
import { defer, EMPTY, expand, filter, merge, noop, Observable, subscribeOn, type Subscriber } from 'rxjs';
import { subscribeLinked } from '../../operators/internal/subscribeLinked.js';
import { withMcpServers } from '../mcp/withMcpServers.js';
import { isContinue, type Continue, type EventSink, type IterationOutput } from './events.js';
import { setup } from './initialState.js';
import { iteration } from './iteration.js';
import type { AgentLoopOptions } from './options.js';
import { createRunInput, readSubmissions, type RunInput, type Submission } from './runInput.js';
import { createRunContext, type RunContext } from './runContext.js';
import { isControlledTerminal, type LoopEvent } from './types.js';

/**
 * Runs the agent loop for one user turn.
 *
 * <span class="informal">Subscribe to start; unsubscribe to abort the request, the tools and the
 * timers. The last event is exactly one `terminal`.</span>
 *
 * ```
 * iteration 1:  -i-m-m-a-t-r-(T c)          i iteration_start, m model, a assistant_message,
 * iteration 2:                 -i-m-a-(X|)  t tool_start, r tool_result, T transition, c continue
 * output:       -i-m-m-a-t-r-T-i-m-a-(X|)   X terminal
 * ```
 *
 * Each iteration ends with a `continue` item (not emitted) or the terminal. Only the `continue`
 * items go through `expand`: events leave each iteration straight for the output, so an event
 * costs no inner subscription (expand subscribes to whatever its projection returns, for every
 * item it sees). `expand` runs at its default concurrency so the next iteration subscribes in
 * the very frame the previous one decided to go on; each iteration is trampolined through
 * `subscribeOn` on a private queue, so synchronous fake models can run any number of iterations
 * without growing the stack.
 *
 * Aborting `options.signal` still ends with a terminal (`aborted_streaming` / `aborted_tools`);
 * a plain unsubscribe tears everything down and emits nothing more.
 *
 * ## Example
 * ```ts
 * import { agentLoop, createMessagesClient } from 'rxagent';
 *
 * agentLoop({ model: 'claude-sonnet-4-5', client: createMessagesClient({ apiKey }), prompt: 'hi' })
 *   .subscribe((event) => event.type === 'terminal' && console.log(event.reason));
 * ```
 */
export function agentLoop(options: AgentLoopOptions): Observable<LoopEvent> {
  // MCP servers (when configured) connect first and close with the loop.
  return withMcpServers(options, (opts) => defer(() => {
    const ctx = createRunContext(opts);
    const input = createRunInput({ chainId: ctx.chainId, depth: opts.depth ?? 0 });
    return loopOf(ctx, input, opts.input$ ? readInput(input, opts.input$, opts.inputAcks) : EMPTY);
  }));
}

/**
 * The submissions of `input$` into the run's input scan, each acknowledged at once; their
 * `queued` events (and, later, the rest of their lifecycle) come out with the loop's events.
 */
export function readInput(input: RunInput, input$: Observable<Submission>, acks: AgentLoopOptions['inputAcks']): Observable<LoopEvent> {
  const received$ = readSubmissions(input$, acks, (command) => input.submit(command));
  return merge(input.lifecycle$, received$);
}

/**
 * One event to the loop's output (module-level: it runs per stream event, and V8 keeps the
 * optimized code of a function only while an instance of it lives).
 */
function deliverEvent(subscriber: Subscriber<LoopEvent>, input: RunInput, event: LoopEvent): void {
  if (subscriber.closed) return;
  // Right before the terminal: closes the input and reports how every submission ended
  // (absorbed ones `completed`/`cancelled` by the kind of ending, still-queued ones
  // `discarded`). Doing it synchronously with the delivery of the terminal leaves no window
  // in which a submission is accepted but never answered, and no `queued` event can follow
  // the terminal.
  if (event.type === 'terminal') {
    for (const lifecycle of input.close(isControlledTerminal(event.reason), { chainId: event.chainId, depth: event.depth })) subscriber.next(lifecycle);
  }
  subscriber.next(event);
}

/**
 * The composition itself, over a prepared context and the run's input side (shared with the
 * agent tree's phases, which feed `input` themselves). The loop owns both from here: its
 * teardown disposes them.
 *
 * One output Subscriber for every event: the iterations hand their events to `deliver` in their
 * frame (the model phase straight from its fold, see `modelPhase.ts`), and only the `continue`
 * items travel through `expand`. Streaming a response is one event per few tokens, so each
 * operator hop between the fold and the consumer is paid thousands of times per response; the
 * Subject and merges this replaces were about half the loop's cost over the bare pipeline.
 */
export function loopOf(ctx: RunContext, input: RunInput, extra$: Observable<LoopEvent> = EMPTY): Observable<LoopEvent> {
  return new Observable<LoopEvent>((subscriber) => {
    const deliver: EventSink = (event) => deliverEvent(subscriber, input, event);
    const route = (out: IterationOutput): out is Continue => {
      if (isContinue(out)) return true;
      deliver(out);
      return false;
    };
    const continues = (out$: Observable<IterationOutput>): Observable<Continue> => out$.pipe(filter(route));
    // Events produced outside the iterations (e.g. a submission was queued) stop with the loop.
    const extra = subscribeLinked(extra$, subscriber, { next: deliver, error: (error: unknown) => subscriber.error(error), complete: noop });
    // Returned, so it runs after the iterations' own teardown (immediately if already over).
    const dispose = () => {
      ctx.dispose();
      input.dispose();
    };
    if (subscriber.closed) return dispose;
    const driver$ = continues(setup(ctx)).pipe(expand((next) => continues(iteration(ctx, input, next, deliver).pipe(subscribeOn(ctx.scheduler)))));
    subscribeLinked(driver$, subscriber, {
      next: noop,
      error: (error: unknown) => subscriber.error(error),
      complete: () => {
        extra.unsubscribe();
        subscriber.complete();
      },
    });
    return dispose;
  });
}
