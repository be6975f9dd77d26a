/**
 * Our side of the control protocol's requests TO the host (`can_use_tool`, `hook_callback`,
 * `mcp_message`): each gets a fresh `request_id`, is written as a `control_request` line and
 * waits for the `control_response` with that id.
 *
 * The wait is bounded: a host that never answers must not hang the turn. On timeout, on an
 * abort of the caller's signal, or when stdin ends, the request fails with `HostRequestFailed`
 * (the caller turns that into a refused tool call) and a `control_cancel_request` tells the
 * host to drop it. A response for an id we do not wait for is ignored.
 */
import type { ControlResponseLine } from './inputLines.js';

/** Why a request to the host got no usable answer. */
export class HostRequestFailed extends Error {
  override readonly name = 'HostRequestFailed';
}

/** Default bound on one answer from the host (a person may be deciding). */
export const DEFAULT_HOST_TIMEOUT_MS = 5 * 60_000;

export interface ControlChannelOptions {
  /** Writes one JSON line to stdout. */
  readonly send: (line: Record<string, unknown>) => void;
  readonly newRequestId: () => string;
  readonly timeoutMs?: number;
}

export interface ControlChannel {
  /** Sends `request` (with its `subtype`) and resolves with the host's success payload. */
  request(request: Record<string, unknown> & { subtype: string }, signal?: AbortSignal): Promise<Record<string, unknown>>;
  /**
   * A request whose answer changes nothing (a SessionEnd callback): like `request` while stdin is
   * open; once it has ended the host can still read the request and run its callback, but its
   * answer cannot reach us, so the request is written and counts as answered (`{}`).
   */
  tell(request: Record<string, unknown> & { subtype: string }, signal?: AbortSignal): Promise<Record<string, unknown>>;
  /** Feeds a `control_response` line; false when no request waited for it. */
  receive(line: ControlResponseLine): boolean;
  /** stdin ended: every waiting request fails, and later ones fail at once. */
  close(reason: string): void;
  readonly pending: number;
}

interface Waiting {
  resolve(payload: Record<string, unknown>): void;
  reject(error: Error): void;
}

export function createControlChannel(options: ControlChannelOptions): ControlChannel {
  const waiting = new Map<string, Waiting>();
  const timeoutMs = options.timeoutMs ?? DEFAULT_HOST_TIMEOUT_MS;
  let closedReason: string | undefined;

  const request: ControlChannel['request'] = (body, signal) => {
    if (closedReason !== undefined) return Promise.reject(new HostRequestFailed(`the host cannot answer ${body.subtype}: ${closedReason}`));
    if (signal?.aborted) return Promise.reject(new HostRequestFailed(`${body.subtype} was cancelled`));
    const requestId = options.newRequestId();
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      const finish = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        waiting.delete(requestId);
      };
      const giveUp = (message: string) => {
        finish();
        options.send({ type: 'control_cancel_request', request_id: requestId });
        reject(new HostRequestFailed(message));
      };
      const onAbort = () => giveUp(`${body.subtype} was cancelled`);
      const timer = setTimeout(
        () => giveUp(`the host did not answer ${body.subtype} within ${Math.round(timeoutMs / 1000)} s`),
        timeoutMs,
      );
      signal?.addEventListener('abort', onAbort, { once: true });
      waiting.set(requestId, {
        resolve: (payload) => {
          finish();
          resolve(payload);
        },
        reject: (error) => {
          finish();
          reject(error);
        },
      });
      options.send({ type: 'control_request', request_id: requestId, request: body });
    });
  };

  return {
    request,
    tell(body, signal) {
      if (closedReason === undefined) return request(body, signal);
      options.send({ type: 'control_request', request_id: options.newRequestId(), request: body });
      return Promise.resolve({});
    },
    receive(line) {
      const entry = waiting.get(line.response.request_id);
      if (!entry) return false;
      if (line.response.subtype === 'success') entry.resolve(line.response.response ?? {});
      else entry.reject(new HostRequestFailed(`the host answered with an error: ${line.response.error}`));
      return true;
    },
    close(reason) {
      closedReason = reason;
      for (const entry of [...waiting.values()]) entry.reject(new HostRequestFailed(`the host cannot answer: ${reason}`));
    },
    get pending() {
      return waiting.size;
    },
  };
}
