// ClickHouse migration 0007: scores (issue 20, decision 0024), shared by the team like the spans:
// review labels one person writes are read by everyone's Loupe. Never edit once applied.
//
// Keyed by (project_id, score_id): a re-run scorer or a changed label is a newer version of its row;
// a deleted score is a newer version with deleted = 1. Strings that may be absent are '' (IN
// subqueries over Nullable columns are awkward on 18.16); value and label keep their NULLs.
export default [
  /* sql */ `
CREATE TABLE IF NOT EXISTS scores (
  project_id String,
  score_id String,
  target String,
  trace_id String,
  span_id String,
  conversation_id String,
  conv_key String,
  agent_name String,
  name String,
  value Nullable(Float64),
  label Nullable(String),
  value_type String,
  explanation Nullable(String),
  source String,
  scorer String,
  scorer_version String,
  creator String,
  correction Nullable(String),
  created_at_ns Int64,
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, score_id)
SETTINGS index_granularity = 1024`,
] as const;
