/**
 * How long the longest test files take, in seconds: the weights test/sequencer.ts orders files by when
 * this checkout has no durations of its own (a fresh clone, CI). Only the order matters, not the
 * values: they were measured on the shared 2-core machine at load 20–46 (2026-11-27, `vitest --reporter
 * json` on groups of files and the per-file lines of full runs), the longest of the runs seen. A
 * `clickhouse:` prefix is the file's rerun in the clickhouse project. Files not listed start after
 * these, largest first. Add a file here when it takes over ~40 s; a stale figure costs only order.
 */
export const SLOW_FILES: Record<string, number> = {
  'test/unit/lint.test.ts': 668, // the coordinator's full run at load ~40 (every file, uncached); not in the other runs
  'test/e2e/trace-big.test.ts': 624,
  'test/unit/ingest-pipeline.test.ts': 270, // 580 before its worker imports took 256-span batches (tests 64 -> 30 s at load 7-9)
  'test/http/fuzz-operations.test.ts': 572,
  'test/http/data-folder.test.ts': 561,
  'test/http/mcp-http.test.ts': 503,
  'test/http/fault-suite.test.ts': 478,
  'test/http/training-jobs.test.ts': 445,
  'test/unit/accounting.test.ts': 436,
  'test/store/trace-store.contract.test.ts': 418,
  'test/e2e/broken-states.test.ts': 405,
  'test/http/training-art-replay.test.ts': 403,
  'test/unit/search.test.ts': 355,
  'test/e2e/import.test.ts': 342,
  'test/http/body-ingest.test.ts': 307,
  'test/unit/conversations-list.test.ts': 284,
  'test/e2e/login.test.ts': 259,
  'test/e2e/search.test.ts': 257,
  'test/e2e/chat.test.ts': 255,
  'test/unit/trainer-rl.test.ts': 237,
  'test/http/training-sft.test.ts': 231,
  'test/http/mcp-stdio.test.ts': 231,
  'test/unit/ingest-formats.test.ts': 230,
  'clickhouse:test/http/mcp-stdio.test.ts': 215,
  'test/e2e/navigation.test.ts': 211,
  'test/http/replay.test.ts': 213, // replay stream, load 18-37
  'test/http/server-api.test.ts': 198,
  'test/unit/clickhouse-write-cost.test.ts': 186,
  'test/http/access.test.ts': 185,
  'clickhouse:test/http/emitter-corpus.test.ts': 184,
  'test/e2e/compare.test.ts': 180,
  'test/unit/clickhouse-writes.test.ts': 179,
  'test/unit/trainer-sft.test.ts': 173,
  'test/unit/retention.test.ts': 160,
  'test/e2e/replay.test.ts': 116, // with the renderer build, load ~18
  'test/unit/ingest-samples.test.ts': 157,
  'test/e2e/tables.test.ts': 157,
  'test/http/training-log.test.ts': 156,
  'test/http/training-2048-context.test.ts': 216, // load 27, before its RL group was cut to one rollout pair
  'test/http/training-rollout-trace.test.ts': 123,
  'test/http/training-tool-schema.test.ts': 86,
  'test/e2e/training.test.ts': 156,
  'test/http/server-cli.test.ts': 155,
  'test/http/server-store.test.ts': 148,
  'test/unit/rollups.test.ts': 133,
  'test/unit/imports.test.ts': 127,
  'test/unit/trainer-inference.test.ts': 125,
  'test/unit/clickhouse-rollups.test.ts': 121,
  'test/http/training-api.test.ts': 120,
  'test/unit/body-codec.test.ts': 108,
  'test/http/training-remote.test.ts': 104,
  'test/store/app-store.test.ts': 97,
  'test/e2e/trace-detail.test.ts': 96,
  'test/unit/compact-summaries.test.ts': 93,
  'test/http/analytics-http.test.ts': 89,
  'test/unit/chat-trace-page.test.ts': 85,
  'test/http/chat-views.test.ts': 84,
  'test/unit/ipc-bridge.test.ts': 83,
  'test/e2e/conversations.test.ts': 82,
  'clickhouse:test/http/chat-views.test.ts': 80,
  'clickhouse:test/http/server-otlp.test.ts': 79,
  'clickhouse:test/http/server-api.test.ts': 77,
  'test/http/traces-timeline.test.ts': 76,
  'test/http/server-guard.test.ts': 76,
  'test/e2e/group-by.test.ts': 72,
  'test/e2e/spans-explorer.test.ts': 69,
  'test/e2e/rough-edges.test.ts': 66, // 47 s of tests + server/browser start, load ~20
  'test/http/hostile-input.test.ts': 65,
  'test/http/replay-selection.test.ts': 63, // load ~16
  'test/http/replay-loop.test.ts': 62, // SFT on the built-in trainer, load ~15
  'clickhouse:test/http/retention-http.test.ts': 65,
  'test/unit/clickhouse-raw-span.test.ts': 65, // the emitter corpus imported into ClickHouse and SQLite (load 12)
  'test/e2e/clickhouse-smoke.test.ts': 63,
  'clickhouse:test/http/traces-timeline.test.ts': 62,
  'clickhouse:test/http/analytics-http.test.ts': 62,
  'test/unit/analytics-spans.test.ts': 52,
  'test/http/server-otlp.test.ts': 48,
  'test/http/langfuse-otlp.test.ts': 47,
  'test/http/mcp-agent.test.ts': 46,
  'test/unit/demo-generator.test.ts': 44,
  'test/unit/migrate.test.ts': 42,
  'test/http/emitter-corpus.test.ts': 42,
};
