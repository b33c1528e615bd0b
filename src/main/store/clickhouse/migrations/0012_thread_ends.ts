// ClickHouse migration 0012: where the threads list in its default order (last updated first) finds its
// newest threads without reading every turn of the project (issue 19). Never edit once applied.
//
// One row per (project, day of a turn's root end, conversation), filled from every conversation_turns
// insert by a materialized view (tombstones and turns without an end are left out) and backfilled from
// the current turns. Rows are only added: a turn whose end moved keeps its old day's row, so the table
// names a superset of the conversations that ended on each day; the list reads their turns exactly
// (reads/threads.ts). `end_day` is the UTC day number (ns ÷ 86,400 s), not a Date, so no time zone or
// Date range applies. The view is created before the backfill: a turn written meanwhile is in either.
export default [
  /* sql */ `
CREATE TABLE IF NOT EXISTS thread_ends (
  project_id String,
  end_day Int64,
  conversation_id String
) ENGINE = ReplacingMergeTree
ORDER BY (project_id, end_day, conversation_id)`,
  /* sql */ `
CREATE MATERIALIZED VIEW IF NOT EXISTS thread_ends_feed TO thread_ends AS
SELECT project_id, intDiv(assumeNotNull(root_end_ns), 86400000000000) AS end_day, conversation_id
FROM conversation_turns WHERE deleted = 0 AND isNotNull(root_end_ns)`,
  /* sql */ `
INSERT INTO thread_ends (project_id, end_day, conversation_id)
SELECT project_id, intDiv(assumeNotNull(root_end_ns), 86400000000000) AS end_day, conversation_id
FROM conversation_turns FINAL WHERE deleted = 0 AND isNotNull(root_end_ns) SETTINGS optimize_move_to_prewhere = 0`,
];
