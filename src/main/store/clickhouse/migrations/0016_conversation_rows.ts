// ClickHouse migration 0016: the conversations list's rows in small granules (issue 19 items 1/4 on ClickHouse). Never edit
// once applied. The list reads its page's keys first and then the page's rows by key (reads/conversations.ts): in
// conversation_summaries (8,192-row granules) a page whose 200 rows are spread over the store (one agent's conversations by
// cost) costs a granule each — every row of the table (398k rows, 134 MiB at 8M spans). conversation_rows holds the same
// rows keyed the same in 128-row granules, filled from every conversation_summaries insert by a view (tombstones too, with
// their versions) and backfilled from the current rows (one pass of a table of ~1 row per 20 spans): its newest rows are
// conversation_summaries'. Additive: older code ignores it.
export default [
  /* sql */ `
CREATE TABLE IF NOT EXISTS conversation_rows (
  project_id String,
  conversation_id String,
  kind String,
  conversation_name Nullable(String),
  turn_count UInt32,
  span_count UInt64,
  error_count UInt64,
  input_tokens Int64,
  output_tokens Int64,
  usage_spans UInt32,
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
ORDER BY (project_id, conversation_id, kind)
SETTINGS index_granularity = 128`,
  /* sql */ `
CREATE MATERIALIZED VIEW IF NOT EXISTS conversation_rows_feed TO conversation_rows AS
SELECT project_id, conversation_id, kind, conversation_name, turn_count, span_count, error_count, input_tokens, output_tokens,
usage_spans, cost_usd, first_ns, last_ns, agent_names, request_models, first_text, last_text, version, deleted FROM conversation_summaries`,
  /* sql */ `
INSERT INTO conversation_rows (project_id, conversation_id, kind, conversation_name, turn_count, span_count, error_count,
input_tokens, output_tokens, usage_spans, cost_usd, first_ns, last_ns, agent_names, request_models, first_text, last_text, version, deleted)
SELECT project_id, conversation_id, kind, conversation_name, turn_count, span_count, error_count, input_tokens, output_tokens,
usage_spans, cost_usd, first_ns, last_ns, agent_names, request_models, first_text, last_text, version, deleted
FROM conversation_summaries FINAL SETTINGS optimize_move_to_prewhere = 0`,
];
