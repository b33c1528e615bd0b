// Migration 0013: the summaries and indexes of spans cut to what a read uses (issue 8 item 5: ≤ 1,000
// bytes per span; layout). Measured per table and index with SQLite's dbstat on the bench's spans
// (docs/store.md "File layout"). Never edit once applied.
export default /* sql */ `
-- Group-bys the rollups do not answer (a condition, a time window, another key) read the table: the
-- covering index cost 137 bytes a span on every store to speed up those scans only; the group-by
-- the issue targets reads span_rollups (migration 0012).
DROP INDEX spans_group_cover;

-- Trace rows: only what retention reads (which traces, how many spans, last activity) and the
-- writer's "trace already stored" test. The header fields were never read back (the chat builds the
-- header from the spans), nor was the start index.
CREATE TABLE trace_summaries_0013 (
  project_id TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  first_start_ns INTEGER,           -- earliest start over all spans of the trace
  last_end_ns INTEGER,              -- latest end over all spans of the trace
  span_count INTEGER NOT NULL,
  PRIMARY KEY (project_id, trace_id)
) WITHOUT ROWID;
INSERT INTO trace_summaries_0013 (project_id, trace_id, first_start_ns, last_end_ns, span_count)
  SELECT project_id, trace_id, first_start_ns, last_end_ns, span_count FROM trace_summaries;
DROP TABLE trace_summaries;
ALTER TABLE trace_summaries_0013 RENAME TO trace_summaries;

-- Turn rows: the two preview candidates by span id instead of their text (the text, cut to 280
-- code points, is read from the span's body when a conversation row is re-aggregated and the turn
-- holds its conversation's first or last message); the root's id, start and status were never read.
CREATE TABLE conversation_turns_0013 (
  project_id TEXT NOT NULL,
  conversation_id TEXT NOT NULL,
  trace_id TEXT NOT NULL,
  turn_start_ns INTEGER,            -- earliest start among the trace's spans carrying this conversation id
  root_end_ns INTEGER,
  duration_ms INTEGER,              -- the turn root's wall clock
  span_count INTEGER NOT NULL,
  error_count INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cost_usd REAL,
  last_ns INTEGER,                  -- latest end (else start) among the turn's spans
  conversation_name TEXT,           -- first non-null in start order
  agent_names TEXT NOT NULL,        -- JSON, distinct, sorted
  request_models TEXT NOT NULL,     -- JSON, distinct, sorted
  first_input_ns INTEGER,           -- start of the earliest span with input messages …
  first_span_id TEXT,               -- … that span (its first user text is the preview)
  last_output_ns INTEGER,           -- end of the latest-ended span with output messages …
  last_span_id TEXT,                -- … that span (its non-user output text is the preview)
  PRIMARY KEY (project_id, conversation_id, trace_id)
) WITHOUT ROWID;
-- The candidates of stored turns, chosen as summaries/conversations.ts turnContribution chooses them:
-- among the turn's spans (the trace's, minus those of another conversation) with input messages
-- (counted bit 4) the earliest start (a missing start last), then the smallest span id; with output
-- messages (bit 8) the latest end (a missing end first), then the largest span id.
INSERT INTO conversation_turns_0013 (project_id, conversation_id, trace_id, turn_start_ns, root_end_ns, duration_ms,
  span_count, error_count, input_tokens, output_tokens, cost_usd, last_ns, conversation_name, agent_names, request_models,
  first_input_ns, first_span_id, last_output_ns, last_span_id)
SELECT t.project_id, t.conversation_id, t.trace_id, t.turn_start_ns, t.root_end_ns, t.duration_ms,
  t.span_count, t.error_count, t.input_tokens, t.output_tokens, t.cost_usd, t.last_ns, t.conversation_name, t.agent_names, t.request_models,
  t.first_input_ns,
  (SELECT s.span_id FROM spans s WHERE s.project_id = t.project_id AND s.trace_id = t.trace_id
     AND (s.conversation_id IS NULL OR s.conversation_id = t.conversation_id) AND s.counted & 4
     ORDER BY s.start_ns IS NULL, s.start_ns, s.span_id LIMIT 1),
  t.last_output_ns,
  (SELECT s.span_id FROM spans s WHERE s.project_id = t.project_id AND s.trace_id = t.trace_id
     AND (s.conversation_id IS NULL OR s.conversation_id = t.conversation_id) AND s.counted & 8
     ORDER BY s.end_ns IS NULL DESC, s.end_ns DESC, s.span_id DESC LIMIT 1)
FROM conversation_turns t;
DROP TABLE conversation_turns;
ALTER TABLE conversation_turns_0013 RENAME TO conversation_turns;
CREATE INDEX conversation_turns_page ON conversation_turns (project_id, conversation_id, turn_start_ns DESC, trace_id DESC);
CREATE INDEX conversation_turns_trace ON conversation_turns (project_id, trace_id);
`;
