// ClickHouse migration 0014: what each trace adds to its project's day rows (issue 19 item 1: project_days kept
// at the cost of the batch, not of the day). Never edit once applied. `trace_days` holds, per (project, partition
// day, trace), the same columns as a project_days row computed over that trace's spans of the day alone (its
// contribution); the writer keeps it from each summary round's read-back and updates a day row by the changes of
// its traces' contributions instead of re-reading the day's spans (project-days.ts). 128-row granules: a round
// looks up only the traces it re-summarizes. `day_writes` records when a writer starts and ends its changes to a
// day's row, so a writer that overlapped another on the same day recomputes the day from its spans instead.
// The backfill copies every trace's contribution from the current spans with version 0 (any writer's row wins;
// two migrators insert equal rows of which ReplacingMergeTree keeps one), consistent with 0011's day rows.
const BACKFILL =
"INSERT INTO trace_days (project_id, day, trace_id, version, span_count, last_start_ns, agent_name, agent_spans,\nagent_invocations, agent_errors, agent_dur_ns, agent_in_tok, agent_out_tok, agent_usage_spans, agent_cost, agent_first_ns,\nagent_last_ns, request_models) SELECT project_id, day, trace_id, 0, n, last, arrayMap(t -> tupleElement(t, 1), g), arrayMap(t -> tupleElement(t, 2), g),\narrayMap(t -> tupleElement(t, 3), g), arrayMap(t -> tupleElement(t, 4), g), arrayMap(t -> tupleElement(t, 5), g),\narrayMap(t -> tupleElement(t, 6), g), arrayMap(t -> tupleElement(t, 7), g), arrayMap(t -> tupleElement(t, 8), g),\narrayMap(t -> tupleElement(t, 9), g), arrayMap(t -> tupleElement(t, 10), g), arrayMap(t -> tupleElement(t, 11), g), models\nFROM (SELECT project_id, day, trace_id, sum(a_spans) AS n, max(a_last) AS last, groupArrayIf(tuple(assumeNotNull(a_agent), a_spans, a_inv,\na_err, a_dur, a_in, a_out, a_usage, a_cost, a_first, a_last), isNotNull(a_agent)) AS g, groupUniqArrayArray(a_models) AS models\nFROM (SELECT project_id, day, trace_id, agent_name AS a_agent, count() AS a_spans, countIf(ifNull(operation_name = 'invoke_agent', 0)) AS a_inv,\ncountIf(status_code = 'ERROR') AS a_err, ifNull(sum(if(ifNull(end_ns > start_ns, 0), end_ns - start_ns, 0)), 0) AS a_dur,\nifNull(sum(if(bitAnd(counted, 1) != 0, ifNull(input_tokens, 0), 0)), 0) AS a_in,\nifNull(sum(if(bitAnd(counted, 1) != 0, ifNull(output_tokens, 0), 0)), 0) AS a_out, countIf(bitAnd(counted, 1) != 0) AS a_usage,\nsum(if(bitAnd(counted, 2) != 0, total_cost_usd, NULL)) AS a_cost, min(start_ns) AS a_first, max(start_ns) AS a_last,\ngroupUniqArray(request_model) AS a_models FROM spans FINAL WHERE deleted = 0 GROUP BY project_id, day, trace_id, agent_name) GROUP BY project_id, day, trace_id) SETTINGS optimize_move_to_prewhere = 0";

export default [
  /* sql */ `
CREATE TABLE IF NOT EXISTS trace_days (
  project_id String,
  day Date,
  trace_id String,
  version UInt64,
  span_count UInt64,
  last_start_ns Nullable(Int64),
  agent_name Array(String),
  agent_spans Array(UInt64),
  agent_invocations Array(UInt64),
  agent_errors Array(UInt64),
  agent_dur_ns Array(Int64),
  agent_in_tok Array(Int64),
  agent_out_tok Array(Int64),
  agent_usage_spans Array(UInt64),
  agent_cost Array(Nullable(Float64)),
  agent_first_ns Array(Nullable(Int64)),
  agent_last_ns Array(Nullable(Int64)),
  request_models Array(String)
) ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, day, trace_id)
SETTINGS index_granularity = 128`,
  /* sql */ `
CREATE TABLE IF NOT EXISTS day_writes (
  project_id String,
  day Date,
  writer String,
  stamp UInt64,
  phase UInt8
) ENGINE = MergeTree
ORDER BY (project_id, day, stamp)
SETTINGS index_granularity = 128`,
  BACKFILL,
];
