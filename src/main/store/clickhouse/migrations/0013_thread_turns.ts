// ClickHouse migration 0013: the turns the threads list reads, in small granules (issue 19). Never edit once
// applied. conversation_turns is keyed by (project, conversation, trace) in 8,192-row granules: the threads of
// the newest days (thread_ends, 0012) are a thousand or more conversations with ids spread over the key, so
// reading their turns there cost a granule each — most of the table. thread_turns holds the columns a thread
// needs (semantics §5: the turn's start, root end and duration), keyed the same in 128-row granules, filled
// from every conversation_turns insert (tombstones too, with their versions) by a view and backfilled from
// the current turns: its newest rows are conversation_turns' (reads/threads.ts).
export default [
  /* sql */ `
CREATE TABLE IF NOT EXISTS thread_turns (
  project_id String,
  conversation_id String,
  trace_id String,
  turn_start_ns Nullable(Int64),
  root_end_ns Nullable(Int64),
  duration_ms Nullable(Int64),
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, conversation_id, trace_id)
SETTINGS index_granularity = 128`,
  /* sql */ `
CREATE MATERIALIZED VIEW IF NOT EXISTS thread_turns_feed TO thread_turns AS
SELECT project_id, conversation_id, trace_id, turn_start_ns, root_end_ns, duration_ms, version, deleted FROM conversation_turns`,
  /* sql */ `
INSERT INTO thread_turns (project_id, conversation_id, trace_id, turn_start_ns, root_end_ns, duration_ms, version, deleted)
SELECT project_id, conversation_id, trace_id, turn_start_ns, root_end_ns, duration_ms, version, deleted
FROM conversation_turns FINAL SETTINGS optimize_move_to_prewhere = 0`,
];
