// Migration 0020: span rollups keyed by the five GenAI columns a group-by filters and groups on
// (issue 19 item 2, decision 0021), so a group-by with a condition over them — or grouped by any of
// them — reads the rollups instead of every span. Maintained by sqlite/summaries/rollups.ts, read by
// sqlite/analytics/rollups.ts. Never edit once applied.
export default /* sql */ `
-- One row per (unit, agent_name, operation_name, status_code, request_model, provider_name, whether
-- start_ns is NULL): a unit is a conversation (unit_kind 0, unit_id its id) or, for the spans of a
-- trace that carry no conversation id, that trace (unit_kind 1). Every span of a row shares the five
-- values, so any condition over them holds for all of a row's spans or for none, and the row's sums
-- are exactly what a group of those spans adds. Invocations, errors and the providers / models a
-- group lists follow from the keys; the agent versions and conversation names are listed per row.
-- first_ns / last_ns (earliest / latest start) tell whether a row lies wholly inside a time window;
-- last_end_ns (latest end) gives a group's wall time.
DROP TABLE span_rollups;
CREATE TABLE span_rollups (
  project_id TEXT NOT NULL,
  unit_kind INTEGER NOT NULL,
  unit_id TEXT NOT NULL,
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
  conversation_names TEXT NOT NULL
);
CREATE INDEX span_rollups_unit ON span_rollups (project_id, unit_kind, unit_id);
INSERT OR IGNORE INTO summary_backfill (name) SELECT 'rollups' WHERE EXISTS (SELECT 1 FROM spans);
`;
