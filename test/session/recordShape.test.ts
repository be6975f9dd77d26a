import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isPlainSessionRecord } from '../../src/session/recordShape.js';
import { sessionRecordSchema } from '../../src/session/records.js';
import { parseTranscript } from '../../src/session/parseTranscript.js';
import { ChainBuilder, text, toolResult, toolUse } from './helpers.js';

function sampleRecords() {
  const c = new ChainBuilder('s');
  c.user('hello');
  c.assistant([text('hi'), toolUse('t1', 'Read', { path: 'x', nested: { a: [1, 2] } })]);
  c.user([toolResult('t1', 'contents'), { type: 'tool_result', tool_use_id: 't2', is_error: true }]);
  c.assistant([{ type: 'thinking', thinking: 'hmm', signature: 'sig' }, { type: 'redacted_thinking', data: 'zz' }, text('ok')]);
  c.boundary([{ role: 'user', content: 'summary' }]);
  c.tombstone(['a', 'b']);
  c.system('init', { any: 'thing' });
  return c.records.map((r) => JSON.parse(JSON.stringify({ ...r, usage: r.type === 'assistant' ? { input_tokens: 3, output_tokens: 4, cache_read_input_tokens: null } : undefined })) as unknown);
}

/** Every path (as key lists) into a JSON value. */
function pathsOf(value: unknown, prefix: (string | number)[] = []): (string | number)[][] {
  const out: (string | number)[][] = [prefix];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...pathsOf(v, [...prefix, i])));
  else if (typeof value === 'object' && value !== null) for (const [k, v] of Object.entries(value)) out.push(...pathsOf(v, [...prefix, k]));
  return out;
}

function setPath(value: unknown, path: (string | number)[], replacement: unknown): unknown {
  if (path.length === 0) return replacement;
  const copy = structuredClone(value) as Record<string | number, unknown>;
  let at = copy;
  for (const key of path.slice(0, -1)) at = at[key] as Record<string | number, unknown>;
  const last = path[path.length - 1]!;
  if (replacement === undefined) delete at[last];
  else at[last] = replacement;
  return copy;
}

describe('isPlainSessionRecord (the fast path of reading)', () => {
  it('accepts the records the writer produces', () => {
    for (const record of sampleRecords()) {
      expect(isPlainSessionRecord(record)).toBe(true);
      expect(sessionRecordSchema.safeParse(record).success).toBe(true);
    }
  });

  it('never accepts what the schema rejects, whatever a field is changed to or removed', () => {
    const samples = sampleRecords();
    const replacement = fc.oneof(
      fc.jsonValue(),
      fc.constantFrom(undefined, '', null, -1, 1.5, '2026-02-30T00:00:00.000Z', '2026-01-01T00:00:00Z', 'user', 'assistant', 'tool_use', {}, []),
    );
    fc.assert(
      fc.property(fc.nat(samples.length - 1), fc.nat(), replacement, (which, pathIndex, value) => {
        const sample = samples[which]!;
        const paths = pathsOf(sample);
        const mutated = setPath(sample, paths[pathIndex % paths.length]!, value);
        if (isPlainSessionRecord(mutated)) expect(sessionRecordSchema.safeParse(mutated).success).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('leaves unusual but valid records to the schema, which still accepts them', () => {
    const [first] = sampleRecords() as Record<string, unknown>[];
    const withImage = {
      ...first,
      message: { role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA==' } }] },
    };
    expect(isPlainSessionRecord(withImage)).toBe(false);
    const parsed = parseTranscript(`${JSON.stringify(withImage)}\n`);
    expect(parsed.warnings).toEqual([]);
    expect(parsed.records).toHaveLength(1);
  });
});
