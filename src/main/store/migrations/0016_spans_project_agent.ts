// Migration 0016: the spans of one agent through an index again (layout). Pinned by
// test/unit/store-indexes.test.ts. Never edit once applied.
export default /* sql */ `
-- Migration 0013 dropped spans_group_cover, which also answered "spans of one agent" (the spans list
-- filtered by agent_name: its page and its count) as a range of the index; without it that request
-- read the whole table (5x slower at 100k spans, linear in the store). Only spans that carry an agent
-- name are indexed (a filter on agent_name = ? implies it), about 21 bytes a bench span.
CREATE INDEX spans_project_agent ON spans (project_id, agent_name) WHERE agent_name IS NOT NULL;
-- (Not a schema change, written down where 0015 is described: from this version on a full-text
-- document holds at most four traces of a conversation, not all of a batch's; sqlite/fts.ts.)
`;
