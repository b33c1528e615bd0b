// ClickHouse migration 0015: the rollups' day layer (rollup-days.ts; issue 19 items 1/4 on ClickHouse). Never edit once
// applied. unit_days: span_rollups' rows split by UTC day of the spans' start — per (project, day, unit) and agent_name
// what a unit's rollup row holds over its spans of that day —, kept by the writer beside span_rollups from the same spans
// (its touched units, at the batch's cost). rollup_days: per (project, day) and agent_name the sums, bounds and lists of
// the day's unit rows and the day's conversation ids, recomputed from the day's unit rows (a day's units, not its spans),
// so the group view reads a row per day instead of a row per unit. No backfill statement: a store that held spans is
// filled day by day in the background at open (rollup_days_fill records when that is done), and until then the group view
// reads span_rollups. Additive: older code ignores these tables.
export default [
  /* sql */ `
CREATE TABLE IF NOT EXISTS unit_days (
  project_id String,
  day Date,
  unit_kind String,
  unit_id String,
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
  last_end Array(Nullable(Int64))
) ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, day, unit_kind, unit_id)
SETTINGS index_granularity = 256`,
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
  /* sql */ `
CREATE TABLE IF NOT EXISTS rollup_days_fill (
  name String,
  done UInt8,
  version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY name`,
  /* sql */ `
INSERT INTO rollup_days_fill (name, done, version) SELECT 'fill', toUInt8((SELECT count() FROM spans) = 0), 0`,
];
