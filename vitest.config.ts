import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './test/sequencer.js';

/**
 * The HTTP conformance files (issue 9): run once more with every test server's spans in ClickHouse
 * (test/http/server-harness.ts reads LOUPE_TEST_STORE). They cover the five query operations, the
 * chat and timeline reads, import, export, delete/retention, and the OTLP/Langfuse receiver.
 * `npx vitest run --project sqlite FILE` runs one file on SQLite only.
 */
export const CLICKHOUSE_CONFORMANCE = [
  'test/http/server-api.test.ts',
  'test/http/analytics-http.test.ts',
  'test/http/chat-views.test.ts',
  'test/http/traces-timeline.test.ts',
  'test/http/emitter-corpus.test.ts',
  'test/http/server-otlp.test.ts',
  'test/http/otlp-logs.test.ts',
  'test/http/langfuse-otlp.test.ts',
  'test/http/otel-exporters.test.ts',
  'test/http/import-upload.test.ts',
  'test/http/retention-http.test.ts',
  'test/http/mcp-stdio.test.ts',
  'test/http/scores-http.test.ts',
  'test/http/scorers-http.test.ts',
  'test/http/clusters-http.test.ts',
  'test/http/judge-http.test.ts',
  'test/http/otlp-spool.test.ts',
];

// Two cores here: run test files in two forked workers. Slow suites (training, e2e) set their own
// per-test timeouts; nothing is skipped silently.
// isolate: false — each worker runs its files one after another in the same process, keeping the
// modules it has imported (the server's ~700 source modules, fastify, playwright-core, ...) instead of
// a new process and a fresh import per file: measured on 20 mixed files at load 19–25, 185 → 113 s of
// CPU, import 333 → 60 s (issue 22.6). Test files hold no state that leaks: each starts its own servers
// in its own temp folders and closes them; the few that set an environment variable restore it.
// LOUPE_TEST_ISOLATE=1 restores a fresh process per file (to rule out a leak when hunting a failure).
export default defineConfig({
  test: {
    pool: 'forks',
    maxWorkers: 2,
    isolate: process.env.LOUPE_TEST_ISOLATE === '1',
    testTimeout: 30_000,
    hookTimeout: 120_000,
    globalSetup: ['test/global-setup.ts'],
    // Longest files first, from this checkout's last durations or test/slow-files.ts (issue 22.6).
    sequence: { sequencer: LongestFirstSequencer },
    reporters: ['default'],
    projects: [
      { extends: true, test: { name: 'sqlite', include: ['test/**/*.test.ts'] } },
      { extends: true, test: { name: 'clickhouse', include: CLICKHOUSE_CONFORMANCE, env: { LOUPE_TEST_STORE: 'clickhouse' } } },
    ],
  },
});
