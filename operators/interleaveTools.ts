/**
 * `interleaveTools(tools)`: the drain tick of the card. One subscription to the assembled
 * response feeds both the output and the tool scheduler, so tool events reach the consumer in
 * the frames they happen in, between the model's own events, while the response still streams.
 */
import { Observable, type OperatorFunction } from 'rxjs';
import { fanOut } from './internal/fanOut.js';
import { subscribeLinked } from './internal/subscribeLinked.js';

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
 * Within a frame the source's value comes first, then what the scheduler made of it (each
 * value is handed to the output before the scheduler sees it). The source is subscribed once,
 * whatever `tools` does with it, and each of its values costs one subscriber hop. If `tools` errors by itself (not by passing the source's error on), that error
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
    new Observable<A | T>((subscriber) => {
      // Per subscription (cold): the response fanned out to the scheduler, and its error held
      // until the scheduler drained.
      const response = fanOut<A>();
      let failure: { readonly error: unknown } | undefined;
      let sourceEnded = false;
      let toolsEnded = false;
      const endWhenBoth = (): void => {
        if (!sourceEnded || !toolsEnded) return;
        if (failure) subscriber.error(failure.error);
        else subscriber.complete();
      };
      // The scheduler listens first, so it sees every value; a throwing `tools` errors at once
      // and the source is never subscribed.
      const tools$ = tools(response.observable);
      subscribeLinked(tools$, subscriber, {
        next: (value) => subscriber.next(value),
        error: (error: unknown) => {
          // The scheduler's re-emission of a source error is the end of its drain; an error
          // of its own is emitted at once.
          if (!failure) return subscriber.error(error);
          toolsEnded = true;
          endWhenBoth();
        },
        complete: () => {
          toolsEnded = true;
          endWhenBoth();
        },
      });
      if (subscriber.closed) return;
      // One hop per model event: the value goes to the output first, then to the scheduler
      // (which may answer it in the same frame, after it). Linked before the source runs, so
      // an early unsubscribe stops a synchronous source at once.
      subscribeLinked(source$, subscriber, {
        next: (value) => {
          subscriber.next(value);
          if (!subscriber.closed) response.next(value);
        },
        error: (error: unknown) => {
          failure = { error };
          sourceEnded = true;
          response.error(error);
          endWhenBoth();
        },
        complete: () => {
          sourceEnded = true;
          response.complete();
          endWhenBoth();
        },
      });
    });
}
