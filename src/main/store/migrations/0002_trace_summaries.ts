// Migration 0002: per-trace (turn) summaries and the conversation → turn index, maintained at ingest
// inside the write transaction (store/sqlite/summaries/traces.ts). Never edit once applied.
// Column meanings are documented in docs/chat.md (the analytics stream's threads query reads them).
export default /* sql */ `
-- One row per (project, trace). Header fields follow semantics §4.2 over ALL spans of the trace.
CREATE TABLE trace_summaries (
  project_id TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  root_span_id TEXT,
  root_span_name TEXT,              -- root agent_name, else root span name (Turn.root_span_name)
  agent_name TEXT,                  -- root's
  agent_version TEXT,               -- root's
  provider_name TEXT,               -- root's
  status_code TEXT,                 -- root's
  start_ns INTEGER,                 -- root start (ns since epoch)
  end_ns INTEGER,                   -- root end
  duration_ms INTEGER,              -- floor((end_ns - start_ns) / 1e6), >= 0; NULL when either is missing
  first_start_ns INTEGER,           -- earliest start over all spans of the trace
  last_end_ns INTEGER,              -- latest end over all spans of the trace
  span_count INTEGER NOT NULL,
  error_count INTEGER NOT NULL,     -- spans with status ERROR
  svc_user_id TEXT,                 -- first non-null in start order
  conversation_ids TEXT NOT NULL DEFAULT '[]', -- JSON array of distinct non-null conversation ids, sorted
  total_input_tokens INTEGER NOT NULL DEFAULT 0,  -- usage-bearing-leaf sums (semantics §3)
  total_output_tokens INTEGER NOT NULL DEFAULT 0,
  total_reasoning_tokens INTEGER NOT NULL DEFAULT 0,
  total_cache_creation_input_tokens INTEGER NOT NULL DEFAULT 0,
  total_cache_read_input_tokens INTEGER NOT NULL DEFAULT 0,
  total_cost_usd REAL,              -- cost-bearing-leaf sum; NULL when no span has a cost
  PRIMARY KEY (project_id, trace_id)
) WITHOUT ROWID;
CREATE INDEX trace_summaries_start ON trace_summaries (project_id, start_ns);

-- One row per (project, conversation, trace): the turns of a conversation (semantics §4.1).
-- The turn's root/duration are computed over the trace's spans minus spans tagged with another
-- conversation id, exactly as the conversation chat view builds the turn.
CREATE TABLE conversation_turns (
  project_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  turn_start_ns INTEGER,            -- earliest start among the trace's spans carrying this conversation id
  root_span_id TEXT,
  root_start_ns INTEGER,
  root_end_ns INTEGER,
  duration_ms INTEGER,              -- root wall clock, as trace_summaries.duration_ms
  status_code TEXT,                 -- root's
  PRIMARY KEY (project_id, conversation_id, trace_id)
) WITHOUT ROWID;
CREATE INDEX conversation_turns_page ON conversation_turns (project_id, conversation_id, turn_start_ns DESC, trace_id DESC);
CREATE INDEX conversation_turns_trace ON conversation_turns (project_id, trace_id);
`;
