// Migration 0022: scores (issue 20, decision 0024): on spans, turns and conversations, from people,
// rules and LLM judges, written and read through the TraceStore. Never edit once applied.
export default /* sql */ `
CREATE TABLE scores (
  project_id TEXT NOT NULL,
  score_id TEXT NOT NULL,
  target TEXT NOT NULL,
  trace_id TEXT,
  span_id TEXT,
  conversation_id TEXT,
  conv_key TEXT NOT NULL,
  agent_name TEXT,
  name TEXT NOT NULL,
  value REAL,
  label TEXT,
  value_type TEXT NOT NULL,
  explanation TEXT,
  source TEXT NOT NULL,
  scorer TEXT,
  scorer_version TEXT,
  creator TEXT,
  correction TEXT,
  created_at_ns INTEGER NOT NULL,
  PRIMARY KEY (project_id, score_id)
) WITHOUT ROWID;
-- The newest-first page of POST /app/scores/query.
CREATE INDEX scores_created ON scores (project_id, created_at_ns, score_id);
-- Filters ($score, the conversations list's score filter) read one name's rows by value or label.
CREATE INDEX scores_name_value ON scores (project_id, name, value, conv_key);
CREATE INDEX scores_name_label ON scores (project_id, name, label, conv_key);
-- Badges of a conversation / a trace, and the score column of a page of the conversations list.
CREATE INDEX scores_conv ON scores (project_id, conv_key);
CREATE INDEX scores_trace ON scores (project_id, trace_id, span_id);
`;
