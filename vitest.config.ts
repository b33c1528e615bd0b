import { defineConfig } from 'vitest/config';

// Two cores here: run test files in two forked workers. Slow suites (training, e2e) set their own
// per-test timeouts; nothing is skipped silently.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    globalSetup: ['test/global-setup.ts'],
    reporters: ['default'],
  },
});
