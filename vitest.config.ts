import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'marbles/**/*.marbles.test.ts'],
    // Bounds on a hang, not on speed: a 2-core machine shared with other heavy work can take
    // many seconds for one CLI run, and a test must not fail because the machine is busy.
    setupFiles: ['test/setup/fastCheckSeed.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
