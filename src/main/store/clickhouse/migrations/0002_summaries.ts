// ClickHouse migration 0002: the read summaries every list reads instead of spans. Never edit once
// applied. Rows are recomputed by the writer from the stored spans of each trace it touched
// (store/clickhouse/summaries.ts) and inserted with a version; ReplacingMergeTree keeps the newest,
// readers use FINAL (or argMax). `deleted` marks a row that no longer exists (a trace that lost a
// conversation or an agent, a deleted trace).
export default [
  /* sql */ `
-- One row per (project, trace): the turn header of semantics §4.2 and the trace's day range (which
-- span partitions hold it, so reads of one trace touch only those).
CREATE TABLE IF NOT EXISTS trace_summaries (
  project_id String,
  trace_id String,
  first_day Date,
  last_day Date,
  root_span_id Nullable(String),
  root_span_name Nullable(String),
  agent_name Nullable(String),
  agent_version Nullable(String),
  provider_name Nullable(String),
  status_code Nullable(String),
  start_ns Nullable(Int64),
  end_ns Nullable(Int64),
  duration_ms Nullable(Int64),
  first_start_ns Nullable(Int64),
  last_start_ns Nullable(Int64),
  last_end_ns Nullable(Int64),
  span_count UInt32,
  error_count UInt32,
  svc_user_id Nullable(String),
  conversation_ids Array(String),
  agent_names Array(String),
  total_input_tokens Int64,
  total_output_tokens Int64,
  total_reasoning_tokens Int64,
  total_cache_creation_input_tokens Int64,
  total_cache_read_input_tokens Int64,
  total_cost_usd Nullable(Float64),
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, trace_id)`,
  /* sql */ `
-- One row per (project, conversation, trace): a turn of the conversation (semantics §4.1), computed
-- over the trace's spans minus those tagged with another conversation, with its contribution to the
-- conversation's row (the same fields as the SQLite adapter's conversation_turns, migration 0006).
CREATE TABLE IF NOT EXISTS conversation_turns (
  project_id String,
  conversation_id String,
  trace_id String,
  turn_start_ns Nullable(Int64),
  root_span_id Nullable(String),
  root_start_ns Nullable(Int64),
  root_end_ns Nullable(Int64),
  duration_ms Nullable(Int64),
  status_code Nullable(String),
  span_count UInt32,
  error_count UInt32,
  input_tokens Int64,
  output_tokens Int64,
  cost_usd Nullable(Float64),
  last_ns Nullable(Int64),
  conversation_name Nullable(String),
  agent_names Array(String),
  request_models Array(String),
  first_input_ns Nullable(Int64),
  first_text Nullable(String),
  last_output_ns Nullable(Int64),
  last_text Nullable(String),
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, conversation_id, trace_id)`,
  /* sql */ `
-- One row per (project, conversation), and per trace in which no span carries a conversation id
-- (kind 'trace', keyed by the trace id): the conversations list reads only this table.
CREATE TABLE IF NOT EXISTS conversation_summaries (
  project_id String,
  conversation_id String,
  kind String,
  conversation_name Nullable(String),
  turn_count UInt32,
  span_count UInt64,
  error_count UInt64,
  input_tokens Int64,
  output_tokens Int64,
  cost_usd Nullable(Float64),
  first_ns Nullable(Int64),
  last_ns Nullable(Int64),
  agent_names Array(String),
  request_models Array(String),
  first_text Nullable(String),
  last_text Nullable(String),
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, conversation_id, kind)`,
  /* sql */ `
-- One row per (project, trace, agent): what the trace contributes to the agent (semantics §6 with
-- the usage-bearing-leaf rule). The agents list sums these per agent.
CREATE TABLE IF NOT EXISTS agent_trace_stats (
  project_id String,
  trace_id String,
  agent_name String,
  span_count UInt32,
  invocation_count UInt32,
  error_count UInt32,
  duration_ns Int64,
  input_tokens Int64,
  output_tokens Int64,
  cost_usd Nullable(Float64),
  first_ns Nullable(Int64),
  last_ns Nullable(Int64),
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, trace_id, agent_name)`,
];
