// ClickHouse migration 0011: kept per-(project, day) rows for the lists that read a row per trace (issue 19:
// the projects list and settings, the Agents page, the filter choices, the Spans list's count). Never edit
// once applied. One row per project and partition day of `spans`: the day's span count and latest start,
// per credited agent the agents list's sums (parallel arrays), the day's request models (project-days.ts,
// which the writer uses to keep them after every summary round and delete). The second statement fills
// them from the spans already stored, with version 0: any row a writer computes later is newer and wins,
// and two migrators running it at once insert equal rows of which ReplacingMergeTree keeps one. The
// backfill is frozen here as it was applied.
const BACKFILL =
"INSERT INTO project_days (project_id, day, version, span_count, last_start_ns, agent_name, agent_spans,\nagent_invocations, agent_errors, agent_dur_ns, agent_in_tok, agent_out_tok, agent_usage_spans, agent_cost, agent_first_ns,\nagent_last_ns, request_models) SELECT project_id, day, 0, n, last, arrayMap(t -> tupleElement(t, 1), g), arrayMap(t -> tupleElement(t, 2), g),\narrayMap(t -> tupleElement(t, 3), g), arrayMap(t -> tupleElement(t, 4), g), arrayMap(t -> tupleElement(t, 5), g),\narrayMap(t -> tupleElement(t, 6), g), arrayMap(t -> tupleElement(t, 7), g), arrayMap(t -> tupleElement(t, 8), g),\narrayMap(t -> tupleElement(t, 9), g), arrayMap(t -> tupleElement(t, 10), g), arrayMap(t -> tupleElement(t, 11), g), models\nFROM (SELECT project_id, day, sum(a_spans) AS n, max(a_last) AS last, groupArrayIf(tuple(assumeNotNull(a_agent), a_spans, a_inv,\na_err, a_dur, a_in, a_out, a_usage, a_cost, a_first, a_last), isNotNull(a_agent)) AS g, groupUniqArrayArray(a_models) AS models\nFROM (SELECT project_id, day, agent_name AS a_agent, count() AS a_spans, countIf(ifNull(operation_name = 'invoke_agent', 0)) AS a_inv,\ncountIf(status_code = 'ERROR') AS a_err, ifNull(sum(if(ifNull(end_ns > start_ns, 0), end_ns - start_ns, 0)), 0) AS a_dur,\nifNull(sum(if(bitAnd(counted, 1) != 0, ifNull(input_tokens, 0), 0)), 0) AS a_in,\nifNull(sum(if(bitAnd(counted, 1) != 0, ifNull(output_tokens, 0), 0)), 0) AS a_out, countIf(bitAnd(counted, 1) != 0) AS a_usage,\nsum(if(bitAnd(counted, 2) != 0, total_cost_usd, NULL)) AS a_cost, min(start_ns) AS a_first, max(start_ns) AS a_last,\ngroupUniqArray(request_model) AS a_models FROM spans FINAL WHERE deleted = 0 GROUP BY project_id, day, agent_name) GROUP BY project_id, day) SETTINGS optimize_move_to_prewhere = 0";

export default [
  /* sql */ `
CREATE TABLE IF NOT EXISTS project_days (
  project_id String,
  day Date,
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
ORDER BY (project_id, day)`,
  BACKFILL,
];
