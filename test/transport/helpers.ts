/** Shared by the transport tests over HTTP: closing what a test opened, collecting a stream. */
import type { Observable } from 'rxjs';
import { afterEach } from 'vitest';
import type { ScriptedServer } from '../../src/testing/scriptedServer.js';
import type { ClosableMessagesClient } from '../../src/transport/createMessagesClient.js';
import type { TransportOutput } from '../../src/transport/types.js';

export interface OpenHandles {
  server: ScriptedServer | undefined;
  client: ClosableMessagesClient | undefined;
}

/** For a test file's top level: whatever a test puts here is closed after it (client first). */
export function useOpenHandles(): OpenHandles {
  const open: OpenHandles = { server: undefined, client: undefined };
  afterEach(async () => {
    await open.client?.close();
    await open.server?.close();
    open.client = undefined;
    open.server = undefined;
  });
  return open;
}

export interface Run {
  outputs: TransportOutput[];
  error: unknown;
}

/** Subscribes and collects every output until the stream completes or errors. */
export function run(stream$: Observable<TransportOutput>): Promise<Run> {
  return new Promise((resolve) => {
    const outputs: TransportOutput[] = [];
    stream$.subscribe({
      next: (o) => outputs.push(o),
      error: (error: unknown) => resolve({ outputs, error }),
      complete: () => resolve({ outputs, error: undefined }),
    });
  });
}
