/** Reads all of stdin as UTF-8 (the prompt of `-p` when none is given as an argument). */

/** Far beyond any context window (~1 MB of text), small enough that `< /dev/zero` cannot exhaust memory. */
export const MAX_STDIN_BYTES = 16 * 1024 * 1024;

export class StdinTooLarge extends Error {
  override readonly name = 'StdinTooLarge';
}

/** Throws `StdinTooLarge` (and stops reading) once more than `maxBytes` arrived. */
export async function readStdin(stream: NodeJS.ReadableStream = process.stdin, maxBytes = MAX_STDIN_BYTES): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    size += buffer.length;
    if (size > maxBytes) {
      (stream as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
      throw new StdinTooLarge(`the prompt on stdin is larger than ${maxBytes} bytes; give a shorter prompt (or a file path to Read)`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}
