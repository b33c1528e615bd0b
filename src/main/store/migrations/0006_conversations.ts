// Migration 0006: conversation summaries (issue 8 item 3), the per-span counting bits of the one
// usage rule (issue 10 item 4), and the spans indexes re-justified (issue 8 item 6). Maintained at
// ingest by store/sqlite/summaries/traces.ts and conversations.ts. Never edit once applied.
export default /* sql */ `
-- Which of the span's values count in totals, decided per trace by domain/chat/tree.ts countedSpans
-- (1: its tokens, 2: its cost), and where conversation previews come from (4: it has input messages,
-- 8: it has output messages). Group-by token and cost totals sum through bits 1 and 2, so they equal
-- the chat header, agents and conversations list for the same spans.
ALTER TABLE spans ADD COLUMN counted INTEGER NOT NULL DEFAULT 0;

-- A turn's contribution to its conversation, over the turn's spans as the conversation chat builds
-- the turn (the trace's spans minus those tagged with another conversation; semantics §4.1).
ALTER TABLE conversation_turns ADD COLUMN span_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversation_turns ADD COLUMN error_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversation_turns ADD COLUMN input_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversation_turns ADD COLUMN output_tokens INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversation_turns ADD COLUMN cost_usd REAL;
ALTER TABLE conversation_turns ADD COLUMN last_ns INTEGER;          -- latest end (else start) among the turn's spans
ALTER TABLE conversation_turns ADD COLUMN conversation_name TEXT;   -- first non-null in start order
ALTER TABLE conversation_turns ADD COLUMN agent_names TEXT NOT NULL DEFAULT '[]';     -- JSON, distinct, sorted
ALTER TABLE conversation_turns ADD COLUMN request_models TEXT NOT NULL DEFAULT '[]';  -- JSON, distinct, sorted
ALTER TABLE conversation_turns ADD COLUMN first_input_ns INTEGER;   -- start of the earliest span with input messages
ALTER TABLE conversation_turns ADD COLUMN first_text TEXT;          -- its first user text, cut to 280 code points
ALTER TABLE conversation_turns ADD COLUMN last_output_ns INTEGER;   -- end of the latest-ended span with output messages
ALTER TABLE conversation_turns ADD COLUMN last_text TEXT;           -- its non-user output text, cut

-- One row per conversation, and one per trace in which no span carries a conversation id (kind
-- 'trace', conversation_id = the trace id: such a trace is a one-turn conversation to a user).
-- The conversations list (conversations.list) reads only this table.
CREATE TABLE conversation_summaries (
  id INTEGER PRIMARY KEY,
  project_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('conversation', 'trace')),
  conversation_id TEXT NOT NULL,
  conversation_name TEXT,
  turn_count INTEGER NOT NULL,
  span_count INTEGER NOT NULL,
  error_count INTEGER NOT NULL,
  input_tokens INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cost_usd REAL,
  first_ns INTEGER,
  last_ns INTEGER,
  agent_names TEXT NOT NULL DEFAULT '[]',
  request_models TEXT NOT NULL DEFAULT '[]',
  first_text TEXT,
  last_text TEXT
);
CREATE UNIQUE INDEX conversation_summaries_key ON conversation_summaries (project_id, conversation_id, kind);
-- One index per sortable column, so every sort of the list reads one page in index order (a summary
-- row is ~1/50 of a conversation's spans: these cost a few bytes per span).
CREATE INDEX conversation_summaries_last ON conversation_summaries (project_id, last_ns);
CREATE INDEX conversation_summaries_first ON conversation_summaries (project_id, first_ns);
CREATE INDEX conversation_summaries_turns ON conversation_summaries (project_id, turn_count);
CREATE INDEX conversation_summaries_spans ON conversation_summaries (project_id, span_count);
CREATE INDEX conversation_summaries_errors ON conversation_summaries (project_id, error_count);
CREATE INDEX conversation_summaries_input ON conversation_summaries (project_id, input_tokens);
CREATE INDEX conversation_summaries_output ON conversation_summaries (project_id, output_tokens);
CREATE INDEX conversation_summaries_cost ON conversation_summaries (project_id, cost_usd);
CREATE INDEX conversation_summaries_name ON conversation_summaries (project_id, conversation_name);

-- Summaries a database made before this migration still lacks: filled once at open (every trace's
-- counting bits, turn contributions and conversation rows), then the row is deleted.
CREATE TABLE summary_backfill (name TEXT PRIMARY KEY);
INSERT INTO summary_backfill (name) SELECT 'conversations' WHERE EXISTS (SELECT 1 FROM spans);

-- Indexes of spans. Kept (each pinned by test/unit/store-indexes.test.ts): spans_key (upserts, every
-- per-trace read), spans_project_start (the spans list's default newest-first page, time filters),
-- spans_project_conversation (filters and exports by conversation), and the group-by covering index,
-- rebuilt with the counting bits so token/cost totals stay index-only. Dropped:
-- spans_project_operation — an operation name matches a third to a half of a project's spans, so
-- no query is faster through it than through a scan, and ingest paid for it on every span.
DROP INDEX spans_project_operation;
DROP INDEX spans_group_cover;
CREATE INDEX spans_group_cover ON spans (
  project_id, agent_name, conversation_id, start_ns, end_ns, status_code, operation_name, counted,
  input_tokens, output_tokens, reasoning_tokens, cache_creation_input_tokens, cache_read_input_tokens,
  agent_version, provider_name, request_model, conversation_name,
  total_cost_usd, input_cost_usd, output_cost_usd
);
`;
