/**
 * The front end when stdin is not a terminal: input is read line by line (each line a prompt or
 * a /command), output is plain text with no escape codes, nothing can be asked (a call that needs
 * approval is refused by the policy), and the end of input means "leave once the running turn
 * is done". SIGINT interrupts the running turn, or leaves.
 */
import { createInterface } from 'node:readline';
import type { FrontEnd, FrontEndHandlers } from './frontEnd.js';

export interface PipedFrontEndOptions {
  readonly input: NodeJS.ReadableStream;
  readonly output: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  readonly handlers: FrontEndHandlers;
}

export function createPipedFrontEnd(options: PipedFrontEndOptions): FrontEnd {
  const { output, handlers } = options;
  const rl = createInterface({ input: options.input, terminal: false });
  rl.on('line', (text) => {
    if (text.trim() !== '') handlers.submit(text);
  });
  rl.on('close', () => handlers.exit());
  const onSignal = () => handlers.interrupt();
  process.on('SIGINT', onSignal);
  return {
    interactive: false,
    color: false,
    columns: () => output.columns ?? 80,
    print: (text) => void output.write(text),
    idle: () => undefined,
    busy: () => undefined,
    choose: async () => undefined,
    readLine: async () => undefined,
    refresh: () => undefined,
    close() {
      process.off('SIGINT', onSignal);
      rl.close();
    },
  };
}
