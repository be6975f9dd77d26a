/**
 * `agentLoop(options)`: the library's main entry point, a cold `Observable<LoopEvent>`.
 * This file holds only the `expand` composition; one iteration is `iteration`, its decisions
 * are the pure `decide*` functions, and every continue builds a new State in `transitions.ts`.
 */
import { defer, EMPTY, expand, filter, finalize, ignoreElements, map, merge, Subject, subscribeOn, takeUntil, tap, type Observable, type MonoTypeOperatorFunction } from 'rxjs';
import { withMcpServers } from '../mcp/withMcpServers.js';
import { isContinue, type Continue, type IterationOutput } from './events.js';
import { setup } from './initialState.js';
import { iteration } from './iteration.js';
import type { AgentLoopOptions } from './options.js';
import { commandOf } from './runInput.js';
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
    const input$ = opts.input$;
    if (!input$) return loopOf(ctx);
    // Submissions go through the run's one router; their fate comes back as lifecycle events.
    const received$ = input$.pipe(
      tap((submission) => ctx.input.receive(commandOf(submission))),
      ignoreElements(),
    );
    const lifecycle$ = ctx.input.lifecycle$.pipe(
      map(({ id, status }): LoopEvent => ({ type: 'command_lifecycle', id, status, ...ctx.input.tracking })),
    );
    return loopOf(ctx, merge(lifecycle$, received$));
  }));
}

/** The composition itself, over a prepared context (shared with `createAgentRun`). */
export function loopOf(ctx: RunContext, extra$: Observable<LoopEvent> = EMPTY): Observable<LoopEvent> {
  return defer(() => {
    const events$ = new Subject<LoopEvent>();
    const done$ = new Subject<void>();
    // Events go to `events$` in their frame; only the continues go on to `expand`.
    const route = (out: IterationOutput): out is Continue => {
      if (isContinue(out)) return true;
      events$.next(out);
      return false;
    };
    const continues = (out$: Observable<IterationOutput>): Observable<Continue> => out$.pipe(filter(route));
    const driver$ = continues(setup(ctx)).pipe(
      expand((next) => continues(iteration(ctx, next).pipe(subscribeOn(ctx.scheduler)))),
      ignoreElements(),
      tap({ complete: () => events$.complete(), error: (error: unknown) => events$.error(error) }),
    );
    const loop$ = merge(events$, driver$).pipe(settleInputAtTerminal(ctx), finalize(() => done$.next()));
    return merge(
      // Events produced outside the iterations (e.g. a submission was queued) stop with the loop.
      extra$.pipe(takeUntil(done$)),
      loop$,
    ).pipe(finalize(() => ctx.dispose()));
  });
}

/**
 * Right before the terminal: closes the input and reports how every submission ended (absorbed
 * ones `completed`/`cancelled` by the kind of ending, still-queued ones `discarded`). Doing it
 * here, synchronously with the delivery of the terminal, leaves no window (a transcript write,
 * the events before the terminal) in which a submission is accepted but never answered, and no
 * `queued` event can follow the terminal.
 */
function settleInputAtTerminal(ctx: RunContext): MonoTypeOperatorFunction<LoopEvent> {
  return (source$) =>
    defer(() => {
      const settled$ = new Subject<LoopEvent>();
      const input = ctx.input;
      return merge(
        settled$,
        source$.pipe(
          tap({
            next: (event) => {
              if (event.type !== 'terminal') return;
              input.inputClosed = true;
              const tracking = { chainId: event.chainId, depth: event.depth };
              const ok = isControlledTerminal(event.reason);
              for (const { id, seen } of input.started.splice(0)) {
                settled$.next({ type: 'command_lifecycle', id, status: ok ? 'completed' : 'cancelled', seenByModel: seen, ...tracking });
              }
              for (const command of input.queue.splice(0)) settled$.next({ type: 'command_lifecycle', id: command.id, status: 'discarded', ...tracking });
            },
            complete: () => settled$.complete(),
            error: (error: unknown) => settled$.error(error),
          }),
        ),
      );
    });
}
