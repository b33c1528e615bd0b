// Migration 0008: the distinct values the conversations list offers as filter choices (layout).
// Maintained at ingest (sqlite/ingest.ts) and after deletes (sqlite/retention.ts). Never edit once applied.
export default /* sql */ `
-- Distinct request models per project: the Conversations page's model choices, read in one index
-- range instead of a pass over every conversation row (~0.3 s at 20k conversations, 10× that at 10M spans).
-- Agents come from agent_summaries.
CREATE TABLE project_values (
  project_id TEXT NOT NULL,
  field TEXT NOT NULL,
  value TEXT NOT NULL,
  PRIMARY KEY (project_id, field, value)
) WITHOUT ROWID;
INSERT OR IGNORE INTO project_values (project_id, field, value)
  SELECT DISTINCT project_id, 'request_model', request_model FROM spans WHERE request_model IS NOT NULL AND request_model <> '';
`;
