import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lazySchema } from '../../src/util/lazySchema.js';

describe('lazySchema', () => {
  it('builds nothing until the first call, then returns the one schema it built', () => {
    let builds = 0;
    const schema = lazySchema(() => {
      builds++;
      return z.object({ n: z.number() });
    });
    expect(builds).toBe(0);
    const first = schema();
    expect(schema()).toBe(first);
    expect(builds).toBe(1);
    expect(first.safeParse({ n: 1 }).success).toBe(true);
    expect(first.safeParse({ n: 'x' }).success).toBe(false);
  });
});
