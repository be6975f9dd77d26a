/**
 * The bench harness's bookkeeping (not its timings: performance is only measured by `npm run
 * bench`). What a figure rests on must be what the README says: alternating order, at least 9
 * rounds, paired ratios, quartiles; and the README table must say which targets are missed.
 */
import { describe, expect, it } from 'vitest';
import { measureInterleaved, MIN_ROUNDS, pairedRatio, spreadOf } from '../../bench/harness.js';
import { meetsTarget, renderTable } from '../../bench/readmeTable.js';
import { networkChunks } from '../../bench/sseFixtures.js';

describe('measureInterleaved', () => {
  it('runs warm-up plus timed rounds, alternating the order of the cases each round', async () => {
    const calls: string[] = [];
    const m = await measureInterleaved({ a: () => calls.push('a'), b: () => calls.push('b'), c: () => calls.push('c') }, { warmup: 1, rounds: MIN_ROUNDS });
    expect(calls.slice(0, 9)).toEqual(['a', 'b', 'c', 'c', 'b', 'a', 'a', 'b', 'c']);
    expect(calls).toHaveLength(3 * (1 + MIN_ROUNDS));
    expect(m.a.wallMs).toHaveLength(MIN_ROUNDS);
    expect(m.a.cpuMs).toHaveLength(MIN_ROUNDS);
  });

  it('refuses a figure on fewer than 9 rounds', async () => {
    await expect(measureInterleaved({ a: () => 0 }, { warmup: 0, rounds: 8 })).rejects.toThrow(RangeError);
  });
});

describe('spreads and paired ratios', () => {
  it('gives the median and quartiles by linear interpolation', () => {
    expect(spreadOf([5, 1, 3, 2, 4])).toEqual({ median: 3, p25: 2, p75: 4 });
    expect(spreadOf([1, 2, 3, 4]).median).toBe(2.5);
  });

  it('divides round by round, so a slow round slows both sides of its ratio', () => {
    const a = { wallMs: [2, 20, 4], cpuMs: [1, 1, 1], wall: spreadOf([2, 20, 4]), cpu: spreadOf([1, 1, 1]) };
    const b = { wallMs: [1, 10, 2], cpuMs: [2, 2, 2], wall: spreadOf([1, 10, 2]), cpu: spreadOf([2, 2, 2]) };
    expect(pairedRatio(a, b, 'wall')).toEqual({ median: 2, p25: 2, p75: 2 });
    expect(pairedRatio(a, b, 'cpu').median).toBe(0.5);
  });
});

describe('the README table', () => {
  it('marks met and missed targets', () => {
    expect(meetsTarget(0.9, '<= 1.0')).toBe(true);
    expect(meetsTarget(1.1, '<= 1.0')).toBe(false);
    expect(meetsTarget(3.4, '>= 3.5')).toBe(false);
    expect(meetsTarget(1000, '1000')).toBe(true);
    expect(meetsTarget(1, 'soon')).toBeUndefined();
    const table = renderTable({
      'x.fast': { value: 0.8, unit: 'ratio', target: '<= 1.0', p25: 0.7, p75: 0.9, rounds: 11 },
      'x.slow': { value: 2.5, unit: 'x', target: '>= 3.5' },
      'x.raw_ms': { value: 12, unit: 'ms' },
    });
    expect(table).toContain('| `x.fast` | 0.80 ratio | 0.70–0.90 (11 rounds) | <= 1.0 | ✓ |');
    expect(table).toContain('| `x.slow` | 2.50 x |  | >= 3.5 | ✗ |');
    expect(table).not.toContain('x.raw_ms');
  });
});

describe('fixture chunking', () => {
  it('covers every byte once, in order, with chunks between 64 B and 16 KiB', () => {
    const bytes = new Uint8Array(200_000).map((_, i) => i % 251);
    const chunks = networkChunks(bytes, 5);
    expect(chunks.reduce((n, c) => n + c.length, 0)).toBe(bytes.length);
    expect(Buffer.concat(chunks).equals(Buffer.from(bytes))).toBe(true);
    for (const c of chunks.slice(0, -1)) {
      expect(c.length).toBeGreaterThanOrEqual(64);
      expect(c.length).toBeLessThanOrEqual(16 * 1024);
    }
  });
});
