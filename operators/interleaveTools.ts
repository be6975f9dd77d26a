/**
 * `interleaveTools(tools)`: the drain tick of the card. One subscription to the assembled
 * response feeds both the output and the tool scheduler, so tool events reach the consumer in
 * the frames they happen in, between the model's own events, while the response still streams.
 */
import { catchError, concat, defer, EMPTY, ignoreElements, merge, Subject, tap, throwError, type OperatorFunction } from 'rxjs';

/**
 * Runs `tools` beside the response it reads and merges their outputs in their frames.
 *
 * <span class="informal">The model's events pass through untouched; the scheduler's events
 * (`tool_start`, `tool_result`, ...) join them as they happen. A stream error is held until the
 * scheduler has drained (answered every call it saw, synthetic results included) and is then
 * re-emitted, so no tool_use is left without its tool_result.</span>
 *
 * ```
 * source:            -a--b---c|          b closes a tool_use block
 * tools(source):     -----s--r-(B|)      s tool_start, r tool_result, B tool_batch
 * interleaveTools:   -a--bs--(cr)(B|)
 *
 * source:            -a--b-#             the stream breaks mid-response
 * tools(source):     ------(rB#)          the scheduler answers b, then passes the error on
 * interleaveTools:   -a--b-(rB#)          the SOURCE's error, after the scheduler's results
 * ```
 *
 * Within a frame the source's value comes first, then what the scheduler made of it (the
 * scheduler subscribes second). The source is subscribed once, whatever `tools`
 * does with it. If `tools` errors by itself (not by passing the source's error on), that error
 * is emitted at once.
 *
 * ## Example
 * ```ts
 * import { agentLoop } from 'rxagent';
 * import { assembleBlocks, interleaveTools, scheduleTools } from 'rxagent/operators';
 *
 * client.stream(request).pipe(assembleBlocks(), interleaveTools(scheduleTools({ tools, shared: {} })))
 *   .subscribe((event) => console.log(event.type));
 * ```
 *
 * @see {@link scheduleTools}, the usual `tools`.
 * @see {@link assembleBlocks}, which makes the response it reads.
 * @param tools The scheduler of this response: reads the response, emits tool events.
 * @returns The response's events and the tools' events, in one stream.
 */
export function interleaveTools<A, T>(tools: OperatorFunction<A, T>): OperatorFunction<A, A | T> {
  return (source$) =>
    defer(() => {
      // Per subscription (cold): the response fanned out, and its error held until the drain.
      const response$ = new Subject<A>();
      let failure: { readonly error: unknown } | undefined;
      return concat(
        merge(
          response$.pipe(
            catchError((error: unknown) => {
              failure = { error };
              return EMPTY;
            }),
          ),
          // The pass-through branch subscribed first, so a source error is recorded before the
          // scheduler sees it: the scheduler's re-emission of it is swallowed here.
          response$.pipe(tools, catchError((error: unknown) => (failure ? EMPTY : throwError(() => error)))),
          // The one subscription to the source, last (both readers listen by then). Not
          // `connect`: it subscribes the source with a Subject as its observer, which a
          // synchronous source never sees closed; this subscriber is chained to the consumer.
          // (Not `tap(response$)`: tap would call the Subject's own `subscribe`/`unsubscribe`.)
          source$.pipe(
            tap({ next: (v) => response$.next(v), error: (e: unknown) => response$.error(e), complete: () => response$.complete() }),
            ignoreElements(),
            catchError(() => EMPTY),
          ),
        ),
        defer(() => (failure ? throwError(() => failure!.error) : EMPTY)),
      );
    });
}
