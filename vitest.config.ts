import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'marbles/**/*.marbles.test.ts'],
    // Bounds on a hang, not on speed: a 2-core machine shared with other heavy work can take
    // many seconds for one CLI run, and a test must not fail because the machine is busy.
    setupFiles: ['test/setup/fastCheckSeed.ts'],
    // Every request body built from cached message JSON is checked against a full stringify, so
    // a stage that changes a sent message in place fails here (src/transport/requestBody.ts).
    env: { RXAGENT_VERIFY_REQUEST_JSON: '1' },
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
