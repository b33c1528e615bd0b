// Migration 0019: one accounting for a conversation, a trace, an agent and a group (issue 18 item 1,
// decision 0022; query). Written by sqlite/summaries/. Never edit once applied.
export default /* sql */ `
-- spans.agent_name and spans.conversation_id now hold the agent and conversation a span is CREDITED
-- to (domain/accounting.ts: its own, else inherited), and spans.counted bits 16 / 32 say which were
-- inherited, so the span's own stays known without a column. How many spans' tokens counted, kept
-- beside each token total: 0 means the usage is unknown (shown "–"), not zero.
ALTER TABLE conversation_turns ADD COLUMN usage_spans INTEGER NOT NULL DEFAULT 0;
ALTER TABLE conversation_summaries ADD COLUMN usage_spans INTEGER NOT NULL DEFAULT 0;
ALTER TABLE agent_trace_stats ADD COLUMN usage_spans INTEGER NOT NULL DEFAULT 0;
ALTER TABLE agent_summaries ADD COLUMN usage_spans INTEGER NOT NULL DEFAULT 0;
-- The latest end among a rollup row's spans: a group's wall time (earliest start to latest end).
ALTER TABLE span_rollups ADD COLUMN last_end_ns INTEGER;
-- A store with spans: every summary and rollup is rebuilt at the next open (summaries/index.ts), which
-- credits every stored span by the new rules.
INSERT OR IGNORE INTO summary_backfill (name) SELECT 'conversations' WHERE EXISTS (SELECT 1 FROM spans);
INSERT OR IGNORE INTO summary_backfill (name) SELECT 'rollups' WHERE EXISTS (SELECT 1 FROM spans);
`;
