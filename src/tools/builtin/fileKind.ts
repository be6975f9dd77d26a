/** Cheap content sniffing shared by Read and Grep. */
import type { FileHandle } from 'node:fs/promises';

/** How many leading bytes decide whether a file is binary (what grep and git look at, roughly). */
export const BINARY_SNIFF_BYTES = 8192;

/** A NUL byte in the first few KB marks a file as binary; text encodings we read never contain one. */
export function looksBinary(bytes: Uint8Array, length = bytes.length): boolean {
  // indexOf is a native memchr: much faster than a JS loop over the bytes.
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(length, BINARY_SNIFF_BYTES)).indexOf(0) !== -1;
}

export async function fileLooksBinary(handle: FileHandle): Promise<boolean> {
  const buffer = Buffer.allocUnsafe(BINARY_SNIFF_BYTES);
  const { bytesRead } = await handle.read(buffer, 0, BINARY_SNIFF_BYTES, 0);
  return looksBinary(buffer, bytesRead);
}
