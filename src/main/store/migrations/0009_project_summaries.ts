// Migration 0009: one row per project (the sidebar's project switcher on every page; layout).
// Maintained at ingest (sqlite/ingest.ts) and after deletes (sqlite/retention.ts). Never edit once applied.
export default /* sql */ `
-- Spans and latest span start per project: system.projects read a pass over every span before
-- (~0.25 s at 1M spans, linear in the store).
CREATE TABLE project_summaries (
  project_id TEXT PRIMARY KEY,
  span_count INTEGER NOT NULL,
  last_start_ns INTEGER
) WITHOUT ROWID;
INSERT INTO project_summaries (project_id, span_count, last_start_ns)
  SELECT project_id, COUNT(*), MAX(start_ns) FROM spans GROUP BY project_id;
`;
