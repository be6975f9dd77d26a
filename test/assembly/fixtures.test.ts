/**
 * Golden SSE fixtures through the real client path (decodeSSE, then assembleBlocks): every way of
 * cutting the bytes into network chunks must assemble to the same outputs and the same message.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { from, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { assembleBlocks } from '../../operators/assembleBlocks.js';
import type { AssemblyOutput } from '../../src/assembly/types.js';
import { decodeSSE } from '../../operators/decodeSSE.js';

const FIXTURES = [
  'text-thinking-tools',
  'unicode',
  'empty-tool-input',
  'truncated-tool-input',
  // One per block type the API documents beyond the core four (SPEC §14), plus a type from the future.
  'server-tools',
  'code-execution',
  'mcp-connector',
  'compaction',
  'programmatic-tool-call',
  'unknown-block',
] as const;
const dir = join(import.meta.dirname, '..', 'fixtures');

/** Runs chunks through the client path synchronously (the source is synchronous). */
function assemble(chunks: readonly Uint8Array[]): AssemblyOutput[] {
  let result: AssemblyOutput[] | undefined;
  let failure: unknown;
  from(chunks)
    .pipe(decodeSSE(), assembleBlocks(), toArray())
    .subscribe({ next: (v) => (result = v), error: (e) => (failure = e) });
  if (failure !== undefined) throw failure;
  if (result === undefined) throw new Error('the pipeline did not complete synchronously');
  return result;
}

function cut(bytes: Uint8Array, at: readonly number[]): Uint8Array[] {
  const chunks: Uint8Array[] = [];
  let prev = 0;
  for (const point of at) {
    chunks.push(bytes.subarray(prev, point));
    prev = point;
  }
  chunks.push(bytes.subarray(prev));
  return chunks;
}

describe.each(FIXTURES)('golden fixture %s', (name) => {
  const bytes = new Uint8Array(readFileSync(join(dir, `${name}.sse`)));
  const expected: unknown = JSON.parse(readFileSync(join(dir, `${name}.expected.json`), 'utf8'));
  const whole = assemble([bytes]);

  it('assembles to the expected message in one chunk', () => {
    expect(whole.at(-1)).toEqual({ type: 'message', message: expected });
    // Well-formed: nothing needed repair.
    expect(whole.filter((o) => o.type === 'warning')).toEqual([]);
    // One block event per content block, in the message's order.
    const blocks = whole.filter((o) => o.type === 'block');
    expect(blocks.map((b) => b.type === 'block' && b.index)).toEqual(
      (expected as { content: unknown[] }).content.map((_, i) => i),
    );
  });

  it('assembles identically when split in two at every byte boundary', () => {
    for (let at = 1; at < bytes.length; at++) {
      const outputs = assemble(cut(bytes, [at]));
      // toEqual on thousands of runs is slow; compare a serialisation, report the first mismatch.
      if (JSON.stringify(outputs) !== JSON.stringify(whole)) expect({ at, outputs }).toEqual({ at, outputs: whole });
    }
  });

  it('assembles identically one byte at a time', () => {
    const oneByOne = Array.from({ length: bytes.length }, (_, i) => i + 1).slice(0, -1);
    expect(assemble(cut(bytes, oneByOne))).toEqual(whole);
  });

  it('assembles identically at random chunk sizes', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 64 }), (points) => {
        const at = [...points].sort((a, b) => a - b);
        expect(assemble(cut(bytes, at))).toEqual(whole);
      }),
      { numRuns: 60 },
    );
  });
});

it('the truncated tool input comes out as an invalid tool_use block with its raw text', () => {
  const outputs = assemble([new Uint8Array(readFileSync(join(dir, 'truncated-tool-input.sse')))]);
  const block = outputs.find((o) => o.type === 'block' && o.block.type === 'tool_use');
  expect(block).toMatchObject({
    block: {
      id: 'toolu_07Cut',
      input: {},
      invalid: { rawInput: '{"file_path": "/tmp/a.txt", "content": "abc', reason: expect.stringContaining('not valid JSON') },
    },
  });
});
