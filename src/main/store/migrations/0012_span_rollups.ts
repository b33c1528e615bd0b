// Migration 0012: per-unit rollups of spans by agent (issue 8 targets: group-by agent_name at 10M
// spans; layout). Maintained at ingest and after deletes by sqlite/summaries/rollups.ts, read by
// sqlite/analytics/rollups.ts. Never edit once applied.
export default /* sql */ `
-- One row per (unit, agent_name): a unit is a conversation (unit_kind 0, unit_id its id) or, for the
-- spans of a trace that carry no conversation id, that trace (unit_kind 1). Each row aggregates the
-- unit's spans whose own agent_name is the row's — what group_by agent_name sees — with the derived
-- values of the spans query (duration_ms, total_tokens, total_cost_usd) summed, counted and bounded,
-- and the distinct values the group rows list. A group-by on agent_name without a filter sums these
-- rows (~1/50 of the spans on the bench) instead of scanning the spans.
CREATE TABLE span_rollups (
  project_id TEXT NOT NULL,
  unit_kind INTEGER NOT NULL,
  unit_id TEXT NOT NULL,
  agent_name TEXT,
  conversation_id TEXT,
  span_count INTEGER NOT NULL,
  invocations INTEGER NOT NULL,
  errors INTEGER NOT NULL,
  first_ns INTEGER,
  last_ns INTEGER,
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
  provider_names TEXT NOT NULL,
  request_models TEXT NOT NULL,
  conversation_names TEXT NOT NULL
);
CREATE INDEX span_rollups_unit ON span_rollups (project_id, unit_kind, unit_id);
INSERT INTO summary_backfill (name) SELECT 'rollups' WHERE EXISTS (SELECT 1 FROM spans);
`;
