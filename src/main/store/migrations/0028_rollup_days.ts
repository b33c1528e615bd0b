// Migration 0028: the per-day layer over the keyed rollups (issue 19 item 2, decision 0026), so a
// group-by over the five rollup keys reads one row per (project, UTC day, key combination) instead of
// one per (unit, key combination). Maintained by sqlite/summaries/rollups.ts, read by
// sqlite/analytics/rollups.ts. Never edit once applied.
export default /* sql */ `
-- The keyed rollups get the UTC day of their spans' start in their key (start_ns / 86,400 s; NULL for
-- spans without a start): a unit active over two days has a row per day, so a day's layer rows are
-- recomputed from that day's rollup rows alone.
ALTER TABLE span_rollups ADD COLUMN day INTEGER;
CREATE INDEX span_rollups_day ON span_rollups (project_id, day);
-- One row per (project, day, agent_name, operation_name, status_code, request_model, provider_name):
-- the sums, counts and bounds of that day's rollup rows with those keys, the distinct agent versions
-- and conversation names (flat JSON arrays), and units: the conversations with spans in the row, as a
-- bitmap of their conversation_summaries ids (sqlite/unit-bits.ts), whose union over any rows counts
-- their distinct conversations exactly.
CREATE TABLE span_rollup_days (
  project_id TEXT NOT NULL,
  day INTEGER,
  agent_name TEXT,
  operation_name TEXT,
  status_code TEXT,
  request_model TEXT,
  provider_name TEXT,
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
CREATE INDEX span_rollup_days_day ON span_rollup_days (project_id, day);
INSERT OR IGNORE INTO summary_backfill (name) SELECT 'rollups' WHERE EXISTS (SELECT 1 FROM spans);
`;
