// Migration 0031: a second per-day layer keyed also by span_name and a duration bucket (issue 19 item 2: the
// Spans page's group view and the list's count with a condition on span_name or a duration bound read every
// span of the project — 1M: 410–680 ms; 10M: 4–5 s). Rows are recomputed whole from a day's spans, deferred:
// a write marks the days it changed stale (span_name_stale), and a stale day is read from its spans until
// it is recomputed (sqlite/summaries/rollups.ts, docs/store.md "span_name and duration layer"). Refilled
// from the spans at the next open (summary_backfill 'name_days'). Never edit once applied.
export default /* sql */ `
-- One row per (project, UTC day, the rollup keys, span_name, duration bucket): the spans of that day with
-- those values, aggregated as span_rollup_days aggregates its rollup rows; units: their conversations as a
-- bitmap of conversation_summaries ids (sqlite/unit-bits.ts). Only for the (day, keys) groups this divides or
-- whose one name is not the conventional one (span_name NULL: the conventional name, summaries/rollups.ts
-- conventionalName): any other group is its span_rollup_days row. dur_bucket: duration_ms in (…, 5,000],
-- (5,000, 10,000], (10,000, 30,000], (30,000, 60,000], (60,000, …) as 0–4 (DUR_BOUNDS_MS); NULL for spans
-- without a duration.
CREATE TABLE span_name_days (
  project_id TEXT NOT NULL,
  day INTEGER,
  agent_name TEXT,
  operation_name TEXT,
  status_code TEXT,
  request_model TEXT,
  provider_name TEXT,
  span_kind TEXT,
  response_model TEXT,
  span_name TEXT,
  dur_bucket INTEGER,
  span_count INTEGER NOT NULL,
  first_ns INTEGER,
  last_ns INTEGER,
  last_end_ns INTEGER,
  dur_ns INTEGER,
  dur_ms_sum INTEGER,
  dur_ms_n INTEGER NOT NULL,
  dur_ms_min INTEGER,
  dur_ms_max INTEGER,
  in_tok INTEGER,
  out_tok INTEGER,
  reasoning_tok INTEGER,
  cache_creation_tok INTEGER,
  cache_read_tok INTEGER,
  tok_sum INTEGER,
  tok_n INTEGER NOT NULL,
  tok_min INTEGER,
  tok_max INTEGER,
  cost REAL,
  in_cost REAL,
  out_cost REAL,
  cost_n INTEGER NOT NULL,
  cost_min REAL,
  cost_max REAL,
  agent_versions TEXT NOT NULL,
  conversation_names TEXT NOT NULL,
  units BLOB
);
-- (No index: a day's rows are deleted by a pass over the table, once per day recomputed, and readers read
-- the project's rows; an index would cost ~1 B/span on the history workload.)
-- Days whose span_name_days rows may be out of date (a write changed their spans since they were computed):
-- readers take those days from the spans. since_ms: when the day became stale (it is recomputed once no
-- write touched it, or after a minute at the latest).
CREATE TABLE span_name_stale (
  project_id TEXT NOT NULL,
  day INTEGER,
  since_ms INTEGER NOT NULL
);
INSERT OR IGNORE INTO summary_backfill (name) SELECT 'name_days' WHERE EXISTS (SELECT 1 FROM spans);
`;
