// ClickHouse migration 0015: the rollups' day layer (rollup-days.ts; issue 19 items 1/4 on ClickHouse). Never edit once
// applied. Per (project, UTC day of the spans' start) one row holding, per agent_name of the day's spans, what a unit's
// span_rollups row holds plus the day's distinct conversation ids, so the group view reads a row per day instead of a
// row per unit. Kept by the writer's recompute of the days a round touches; no backfill statement here: a store that
// held spans is filled day by day in the background at open (rollup-days.ts backfillRollupDays), and until then the
// group view reads span_rollups. Additive: older code ignores the table.
export default [
  /* sql */ `
CREATE TABLE IF NOT EXISTS rollup_days (
  project_id String,
  day Date,
  version UInt64,
  agent_name Array(Nullable(String)),
  span_count Array(UInt64),
  invocations Array(UInt64),
  errors Array(UInt64),
  first_ns Array(Nullable(Int64)),
  last_ns Array(Nullable(Int64)),
  dur_ns Array(Nullable(Int64)),
  in_tok Array(Nullable(Int64)),
  out_tok Array(Nullable(Int64)),
  reasoning_tok Array(Nullable(Int64)),
  cache_creation_tok Array(Nullable(Int64)),
  cache_read_tok Array(Nullable(Int64)),
  cost Array(Nullable(Float64)),
  in_cost Array(Nullable(Float64)),
  out_cost Array(Nullable(Float64)),
  cost_n Array(UInt64),
  cost_min Array(Nullable(Float64)),
  cost_max Array(Nullable(Float64)),
  dur_ms_sum Array(Nullable(Int64)),
  dur_ms_n Array(UInt64),
  dur_ms_min Array(Nullable(Int64)),
  dur_ms_max Array(Nullable(Int64)),
  tok_sum Array(Nullable(Int64)),
  tok_n Array(UInt64),
  tok_min Array(Nullable(Int64)),
  tok_max Array(Nullable(Int64)),
  agent_versions Array(Array(String)),
  provider_names Array(Array(String)),
  request_models Array(Array(String)),
  conversation_names Array(Array(String)),
  last_end Array(Nullable(Int64)),
  conversations Array(Array(String))
) ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, day)
SETTINGS index_granularity = 256`,
];
