/**
 * The worker thread of bashCheckThread.ts: answers Bash permission checks one at a time with the
 * same pure function the main thread would run. An answer that cannot be computed (an exception
 * from deep inside the parser) is sent back as a failure, so the command asks.
 */
import { parentPort } from 'node:worker_threads';
import { answerBashCheck, type BashCheckRequest } from './bashCheck.js';

const port = parentPort;
if (port === null) throw new Error('bashCheckWorker.js runs as a worker thread only');

port.on('message', ({ id, request }: { id: number; request: BashCheckRequest }) => {
  try {
    port.postMessage({ id, ok: true, answer: answerBashCheck(request) });
  } catch (error) {
    port.postMessage({ id, ok: false, message: error instanceof Error ? error.message : String(error) });
  }
});
