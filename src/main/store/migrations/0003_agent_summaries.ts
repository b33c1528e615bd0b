// Migration 0003: per-agent read summaries (semantics §6, issue 3 item 7), maintained at ingest by
// store/sqlite/summaries/agents.ts inside the write transaction. Never edit once applied.
export default /* sql */ `
-- One row per (project, trace, agent): what that trace contributes to the agent. Kept so that a
-- re-imported trace (a span that changed agent, a late child that changes which span is the
-- usage-bearing leaf) can be subtracted exactly before its new contribution is added.
CREATE TABLE agent_trace_stats (
  project_id TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  agent_name TEXT NOT NULL,
  span_count INTEGER NOT NULL,
  invocation_count INTEGER NOT NULL,
  error_count INTEGER NOT NULL,
  duration_ns INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cost_usd REAL,
  first_ns INTEGER,
  last_ns INTEGER,
  PRIMARY KEY (project_id, trace_id, agent_name)
) WITHOUT ROWID;
CREATE INDEX agent_trace_stats_agent ON agent_trace_stats (project_id, agent_name);

-- One row per (project, agent): the agents list reads only this table.
CREATE TABLE agent_summaries (
  project_id TEXT NOT NULL,
  agent_name TEXT NOT NULL,
  span_count INTEGER NOT NULL,
  invocation_count INTEGER NOT NULL,
  error_count INTEGER NOT NULL,
  duration_ns INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cost_usd REAL,
  first_ns INTEGER,
  last_ns INTEGER,
  PRIMARY KEY (project_id, agent_name)
) WITHOUT ROWID;
CREATE INDEX agent_summaries_last ON agent_summaries (project_id, last_ns);
`;
