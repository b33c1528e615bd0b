// Migration 0018: thread statistics on the conversation rows (issue 19 item 2), so threads.query
// without a time window reads one page of an index whatever its sort (percentile sorts read every
// turn row of the project before: 3.6 s at 1M spans). Written by sqlite/summaries/threads.ts. Never
// edit once applied.
export default /* sql */ `
-- Per conversation row of kind 'conversation' (NULL for kind 'trace' rows and for conversations none
-- of whose turns has an end, which threads skip): the thread's last_updated (latest turn-call end),
-- first and last turn (trace ids) and the exact p50/p99 of its turn durations (semantics §5).
ALTER TABLE conversation_summaries ADD COLUMN turn_end_ns INTEGER;
ALTER TABLE conversation_summaries ADD COLUMN first_turn_id TEXT;
ALTER TABLE conversation_summaries ADD COLUMN last_turn_id TEXT;
ALTER TABLE conversation_summaries ADD COLUMN p50_turn_ms REAL;
ALTER TABLE conversation_summaries ADD COLUMN p99_turn_ms REAL;
-- The sorts the list's indexes do not serve (thread_id, turn_count, start_time use the key,
-- conversation_summaries_turns and conversation_summaries_first). Only threads are indexed.
CREATE INDEX conversation_summaries_thread_end ON conversation_summaries (project_id, turn_end_ns) WHERE turn_end_ns IS NOT NULL;
CREATE INDEX conversation_summaries_thread_p50 ON conversation_summaries (project_id, p50_turn_ms) WHERE turn_end_ns IS NOT NULL;
CREATE INDEX conversation_summaries_thread_p99 ON conversation_summaries (project_id, p99_turn_ms) WHERE turn_end_ns IS NOT NULL;
-- Rows of an older store get their statistics from their turn rows at the next open.
INSERT INTO summary_backfill (name) SELECT 'threads' WHERE EXISTS (SELECT 1 FROM conversation_summaries WHERE kind = 'conversation');
`;
