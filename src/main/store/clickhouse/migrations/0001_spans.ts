// ClickHouse migration 0001: the span tables and resources. Never edit once applied (the migrator
// stores a hash of each applied migration and refuses a database whose history differs).
// Every statement is idempotent (IF NOT EXISTS): ClickHouse has no transactions, so a migration
// interrupted half-way is completed by running it again. Written for ClickHouse 18.16 and later
// (no LowCardinality, CODEC, TTL or skip indexes: see docs/clickhouse.md for what newer servers add).
export default [
  /* sql */ `
-- Narrow list table: one row per span version; every column a list, filter, group-by or summary reads,
-- previews cut to 280 characters, no payloads. Rows of one trace are adjacent (ORDER BY), partitions
-- are UTC days of the span's start (retention drops whole partitions). ReplacingMergeTree keeps the
-- highest version of a (project, trace, span) key; readers that need exactly-once use FINAL.
CREATE TABLE IF NOT EXISTS spans (
  day Date,
  project_id String,
  trace_id String,
  span_id String,
  start_ns Nullable(Int64),
  end_ns Nullable(Int64),
  resource_id String,
  parent_span_id Nullable(String),
  span_name String,
  span_kind String,
  status_code String,
  status_message Nullable(String),
  service_name Nullable(String),
  scope_name Nullable(String),
  scope_version Nullable(String),
  operation_name Nullable(String),
  provider_name Nullable(String),
  agent_id Nullable(String),
  agent_name Nullable(String),
  agent_version Nullable(String),
  agent_description Nullable(String),
  conversation_id Nullable(String),
  conversation_name Nullable(String),
  request_model Nullable(String),
  response_model Nullable(String),
  response_id Nullable(String),
  output_type Nullable(String),
  error_type Nullable(String),
  server_address Nullable(String),
  server_port Nullable(Int64),
  tool_name Nullable(String),
  tool_type Nullable(String),
  tool_call_id Nullable(String),
  tool_description Nullable(String),
  reasoning_content Nullable(String),
  compaction_summary Nullable(String),
  compaction_items_before Nullable(Int64),
  compaction_items_after Nullable(Int64),
  svc_user_id Nullable(String),
  svc_run_id Nullable(String),
  svc_run_step Nullable(Int64),
  svc_run_step_end Nullable(Int64),
  request_temperature Nullable(Float64),
  request_top_p Nullable(Float64),
  request_frequency_penalty Nullable(Float64),
  request_presence_penalty Nullable(Float64),
  request_max_tokens Nullable(Int64),
  request_seed Nullable(Int64),
  request_choice_count Nullable(Int64),
  input_tokens Nullable(Int64),
  output_tokens Nullable(Int64),
  reasoning_tokens Nullable(Int64),
  cache_creation_input_tokens Nullable(Int64),
  cache_read_input_tokens Nullable(Int64),
  input_cost_usd Nullable(Float64),
  output_cost_usd Nullable(Float64),
  cache_creation_cost_usd Nullable(Float64),
  cache_read_cost_usd Nullable(Float64),
  total_cost_usd Nullable(Float64),
  finish_reasons Array(String),
  request_stop_sequences Array(String),
  artifact_refs Array(String),
  content_refs Array(String),
  object_refs Array(String),
  -- custom attributes as parallel key/value arrays, one pair per value type
  str_keys Array(String),
  str_values Array(String),
  int_keys Array(String),
  int_values Array(Int64),
  float_keys Array(String),
  float_values Array(Float64),
  bool_keys Array(String),
  bool_values Array(UInt8),
  -- tool texts are short and filterable ($contains on a tool result); in a column store they cost a
  -- scan only when a query names them, so they live here and not with the payloads
  tool_definitions Nullable(String),
  tool_call_arguments Nullable(String),
  tool_call_result Nullable(String),
  -- the one counting rule's bits (domain/chat/tree.ts countedSpans): 1 the span's tokens count, 2 its cost
  counted UInt8,
  has_input UInt8,
  input_preview Nullable(String),
  has_output UInt8,
  output_preview Nullable(String),
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version)
PARTITION BY day
ORDER BY (project_id, trace_id, span_id)
SETTINGS index_granularity = 2048`,
  /* sql */ `
-- Full table: the payloads (messages, instructions, events, the span as received), read only for one
-- trace at a time (chat, export, include_details) or a search. Small granules: rows are large.
CREATE TABLE IF NOT EXISTS span_payloads (
  day Date,
  project_id String,
  trace_id String,
  span_id String,
  system_instructions String,
  input_messages String,
  output_messages String,
  events String,
  links String,
  raw_span String,
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version)
PARTITION BY day
ORDER BY (project_id, trace_id, span_id)
SETTINGS index_granularity = 256`,
  /* sql */ `
-- Resource attributes, once per distinct resource of a project (SigNoz's resource dedup).
CREATE TABLE IF NOT EXISTS resources (
  project_id String,
  resource_id String,
  attributes String
) ENGINE = ReplacingMergeTree
ORDER BY (project_id, resource_id)`,
  /* sql */ `
-- Days (partitions of spans and span_payloads) that may hold more than one version of a span: a
-- re-import, a recount, a tombstone, or two writers storing one span at once. Reads that scan spans
-- merge versions (FINAL) only in these days; the rest are read as they are, several times faster.
-- A day is clean again once merged whole (OPTIMIZE … FINAL) with no write since (writer.ts).
CREATE TABLE IF NOT EXISTS dirty_days (
  day Date,
  dirty UInt8,
  version UInt64
) ENGINE = ReplacingMergeTree(version)
ORDER BY day`,
];
