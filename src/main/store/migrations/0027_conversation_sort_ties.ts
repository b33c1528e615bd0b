// Migration 0027: the conversations list sorted by turns or by errors reads one page (issue 19 item 2).
// The list's order is the sort column, then conversation_id and kind ascending (domain/conversation-order.ts).
// Turn and error counts take few values (2–8 turns on the bench: ~1/7 of a project's rows share the
// largest), so an index of the column alone left SQLite sorting every row tied with the page's values:
// "with errors, by turns" read 29,672 rows (61 ms of CPU) at 6.2M spans. These indexes hold the whole
// order of the descending sort (the UI's), so that page is a walk of the index; the ascending sort reads
// it backwards and sorts each run of ties as before. Read by sqlite/conversations.ts (also the error
// rows' count: a range of conversation_summaries_errors). Pinned by test/unit/conversations-list.test.ts.
// Never edit once applied.
export default /* sql */ `
DROP INDEX conversation_summaries_turns;
CREATE INDEX conversation_summaries_turns ON conversation_summaries (project_id, turn_count DESC, conversation_id, kind);
DROP INDEX conversation_summaries_errors;
CREATE INDEX conversation_summaries_errors ON conversation_summaries (project_id, error_count DESC, conversation_id, kind);
`;
