/**
 * `gate()`: a promise and the function that opens it, for ordering a script by events instead of
 * durations. Hand `gate.promise` to a scripted message's `endAfter` and call `gate.open()` when
 * the event the end must follow has happened (a tool started, another request arrived).
 *
 * @example
 * ```ts
 * const childAsked = gate();
 * const script = (request: MessagesRequest) =>
 *   isChild(request)
 *     ? (childAsked.open(), { kind: 'message', blocks: [{ type: 'text', text: 'child' }] })
 *     : { kind: 'message', blocks: [launchBlock], endAfter: childAsked.promise };
 * ```
 */
export interface Gate {
  /** Settles (fulfilled, with no value) once `open()` was called. */
  readonly promise: Promise<void>;
  /** Opens the gate; later calls do nothing. */
  readonly open: () => void;
  /** Whether `open()` was called. */
  readonly isOpen: () => boolean;
}

/** A closed {@link Gate}. (Node 20 has no `Promise.withResolvers`.) */
export function gate(): Gate {
  let resolve!: () => void;
  let opened = false;
  const promise = new Promise<void>((r) => (resolve = r));
  return {
    promise,
    open: () => {
      opened = true;
      resolve();
    },
    isOpen: () => opened,
  };
}
