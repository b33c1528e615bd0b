// ClickHouse migration 0004: the writer's own lookup tables (writer.ts), so that no statement of a
// write reads more than the rows of the batch's traces. Never edit once applied.
//
// A batch looks traces and conversations up by id. Ids are random, so each id costs one granule in
// every part of the table it is looked up in: with the read summaries' 8,192-row granules, a batch of
// a few thousand traces read whole tables, and import slowed as the store grew (issue 19). These
// tables hold only what the writer needs, in 128-row granules, keyed like the rows they shadow; the
// writer keeps them in the same batch as trace_summaries and conversation_turns. The backfills copy
// the current rows (FINAL, tombstones included, with their versions): a later writer's row wins, and
// two migrators insert equal rows of which ReplacingMergeTree keeps one.
export default [
  /* sql */ `
-- Per (project, trace): the days its spans are in, the conversations and agents it feeds, and whether
-- it has spans without a conversation (its own rollup unit, rollups.ts).
CREATE TABLE IF NOT EXISTS trace_keys (
  project_id String,
  trace_id String,
  first_day Date,
  last_day Date,
  conversation_ids Array(String),
  agent_names Array(String),
  loose_spans UInt8,
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, trace_id)
SETTINGS index_granularity = 128`,
  /* sql */ `
-- Per (project, conversation, trace): the turn's days and its contribution to the conversation (the
-- fields summaries.ts summarizeConversation reads), so a conversation's row is recomputed from here.
CREATE TABLE IF NOT EXISTS conversation_keys (
  project_id String,
  conversation_id String,
  trace_id String,
  first_day Date,
  last_day Date,
  turn_start_ns Nullable(Int64),
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
ORDER BY (project_id, conversation_id, trace_id)
SETTINGS index_granularity = 128`,
  /* sql */ `
-- Batches whose summaries are not known to be complete: a row when a batch starts (done = 0), a newer
-- one when its summaries and rollups are written (done = 1). A writer that lost its server (or died)
-- part-way leaves done = 0, and the next writer to open the store recomputes those traces
-- (writer.ts repair). Partitions are days of writing; old ones are dropped once every batch in them is done.
CREATE TABLE IF NOT EXISTS write_journal (
  project_id String,
  batch_id String,
  written DateTime,
  trace_ids Array(String),
  days Array(Date),
  conversation_ids Array(String),
  done UInt8,
  version UInt64
) ENGINE = ReplacingMergeTree(version)
PARTITION BY toDate(written)
ORDER BY (project_id, batch_id)`,
  /* sql */ `
INSERT INTO trace_keys (project_id, trace_id, first_day, last_day, conversation_ids, agent_names, loose_spans, version, deleted)
SELECT project_id, trace_id, first_day, last_day, conversation_ids, agent_names,
  (project_id, trace_id) IN (SELECT project_id, unit_id FROM span_rollups FINAL WHERE unit_kind = 'trace' AND notEmpty(agent_name)),
  version, deleted
FROM trace_summaries FINAL
SETTINGS optimize_move_to_prewhere = 0`,
  /* sql */ `
INSERT INTO conversation_keys (project_id, conversation_id, trace_id, first_day, last_day, turn_start_ns, span_count, error_count,
  input_tokens, output_tokens, cost_usd, last_ns, conversation_name, agent_names, request_models, first_input_ns, first_text,
  last_output_ns, last_text, version, deleted)
SELECT project_id, conversation_id, trace_id, first_day, last_day, turn_start_ns, span_count, error_count, input_tokens,
  output_tokens, cost_usd, last_ns, conversation_name, agent_names, request_models, first_input_ns, first_text, last_output_ns,
  last_text, version, deleted
FROM (SELECT * FROM conversation_turns FINAL)
ANY LEFT JOIN (SELECT project_id, trace_id, first_day, last_day FROM trace_summaries FINAL) USING (project_id, trace_id)
SETTINGS optimize_move_to_prewhere = 0`,
];
