// Migration 0017: a trace's conversations on its trace row instead of an index of the turn rows by
// trace (layout). Written by sqlite/summaries/traces.ts. Never edit once applied.
export default /* sql */ `
-- "Which conversations does this trace have turns in" (the writer before it rewrites a trace, the
-- rollups, search) read conversation_turns through an index on (project_id, trace_id): 17 bytes a
-- bench span. The trace row holds the answer as a sorted JSON array in ~3.
ALTER TABLE trace_summaries ADD COLUMN conversation_ids TEXT NOT NULL DEFAULT '[]';
UPDATE trace_summaries SET conversation_ids = (
    SELECT json_group_array(conversation_id) FROM (
      SELECT ct.conversation_id FROM conversation_turns ct
      WHERE ct.project_id = trace_summaries.project_id AND ct.trace_id = trace_summaries.trace_id ORDER BY ct.conversation_id))
  WHERE EXISTS (SELECT 1 FROM conversation_turns ct WHERE ct.project_id = trace_summaries.project_id AND ct.trace_id = trace_summaries.trace_id);
DROP INDEX conversation_turns_trace;
`;
