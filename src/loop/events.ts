/** Builders for loop events and the items an iteration emits into `expand`. */
import type { LoopEvent, LoopState, QueryTracking } from './types.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
export type LoopEventBody = DistributiveOmit<LoopEvent, keyof QueryTracking>;

/** What one iteration emits: events for the consumer, and at most one `continue` (its last item). */
export type IterationOutput =
  | { readonly kind: 'event'; readonly event: LoopEvent }
  | { readonly kind: 'continue'; readonly state: LoopState };

export function eventOf(tracking: QueryTracking, body: LoopEventBody): IterationOutput {
  return { kind: 'event', event: { ...body, chainId: tracking.chainId, depth: tracking.depth } as LoopEvent };
}
