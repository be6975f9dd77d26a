/**
 * The error a timer-driven operator fails with: what the caller's factory returns, or what it
 * throws (still an error for the consumer, never an unhandled throw inside a timer callback).
 */
export function errorFrom(factory: () => unknown): unknown {
  try {
    return factory();
  } catch (thrown) {
    return thrown;
  }
}
