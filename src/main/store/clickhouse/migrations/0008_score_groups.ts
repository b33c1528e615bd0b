// ClickHouse migration 0008: score-group members (issue 20, the Clusters view). Never edit once applied.
//
// One row per (group, turn) by domain/score-groups.ts's rule — a `failures` score with a label is in
// the group of its label ('signature'), any other score with value <= 0.499999999 in the group of its
// name ('low'); the turn is the trace, or 'c:' || conv_key for a conversation score — at the time and
// with the agent of its earliest row in the group. The writer recomputes a (group, turn)'s row from the
// turn's scores whenever one of them is written or deleted (a newer version; deleted = 1 when the turn
// left the group); the view sums members per (group, day, agent) at read. Members rather than running
// per-day sums: without transactions two Loupes on one database could double-count a sum, while a
// member recomputed from the scores is the same whoever writes it last.
export default [
  /* sql */ `
CREATE TABLE IF NOT EXISTS score_group_turns (
  project_id String,
  kind String,
  key String,
  turn String,
  trace_id String,
  at_ns Int64,
  agent_name String,
  version UInt64,
  deleted UInt8
) ENGINE = ReplacingMergeTree(version)
ORDER BY (project_id, kind, key, turn)
SETTINGS index_granularity = 1024`,
  // The scores already stored (version 0: any later write wins). Ties on time take any of the rows' agents.
  /* sql */ `
INSERT INTO score_group_turns (project_id, kind, key, turn, trace_id, at_ns, agent_name, version, deleted)
SELECT project_id, kind, key, turn, any(trace_id), min(created_at_ns), argMin(agent_name, created_at_ns), 0, 0
FROM (
  SELECT project_id, if(name = 'failures', 'signature', 'low') AS kind, if(name = 'failures', assumeNotNull(label), name) AS key,
    if(trace_id = '', concat('c:', conv_key), trace_id) AS turn, trace_id, agent_name, created_at_ns
  FROM scores FINAL
  WHERE deleted = 0 AND ((name = 'failures' AND isNotNull(label)) OR (name != 'failures' AND ifNull(value <= 0.499999999, 0)))
)
GROUP BY project_id, kind, key, turn`,
] as const;
