/**
 * What ends a scripted response's playback (the client went away, the server closed): the part
 * of AbortController/AbortSignal the server uses, without the EventTarget. A loaded scripted
 * server opens one per response, and creating, listening to and aborting a real one (an
 * EventTarget and, on abort, a DOMException with its stack) was several percent of its time.
 * Listeners run once, in the order they were added, like an AbortSignal's; none is added after
 * the end (every caller checks `aborted` first).
 */
export interface PlaybackSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options: { readonly once: true }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface Playback {
  readonly signal: PlaybackSignal;
  /** Ends the playback: every listener runs once, in the order added; later calls do nothing. */
  abort(): void;
}

export function createPlayback(): Playback {
  let aborted = false;
  const listeners = new Set<() => void>();
  return {
    signal: {
      get aborted() {
        return aborted;
      },
      addEventListener: (_type, listener) => void listeners.add(listener),
      removeEventListener: (_type, listener) => void listeners.delete(listener),
    },
    abort() {
      if (aborted) return;
      aborted = true;
      for (const listener of listeners) {
        listeners.delete(listener);
        listener();
      }
    },
  };
}
