// Migration 0026: the conversations list filtered by agent, and its unfiltered count, from small tables
// kept by triggers on conversation_summaries (issue 19 item 2: "conversations list, one agent, by cost"
// tested every row's agent list — 6.3 s at 5M spans under load — and the unfiltered list counted every
// row of the project's index). Kept in the transaction that writes, re-aggregates or deletes a row
// (the summaries upsert with ON CONFLICT DO UPDATE, so the update trigger fires; a REPLACE would not
// fire the delete trigger). Read by sqlite/conversations.ts; pinned by test/unit/conversations-list.test.ts.
// Never edit once applied.
export default /* sql */ `
-- One row per (conversation row, agent in its agent_names): the rows of one agent are a range of the key.
CREATE TABLE conversation_agents (
  project_id TEXT NOT NULL,
  agent_name TEXT NOT NULL,
  summary_id INTEGER NOT NULL,
  PRIMARY KEY (project_id, agent_name, summary_id)
) WITHOUT ROWID;

-- How many conversation rows (both kinds) a project has: the list's count when nothing filters it.
CREATE TABLE conversation_counts (
  project_id TEXT PRIMARY KEY,
  rows INTEGER NOT NULL
) WITHOUT ROWID;

INSERT OR IGNORE INTO conversation_agents (project_id, agent_name, summary_id)
  SELECT c.project_id, j.value, c.id FROM conversation_summaries c, json_each(c.agent_names) j;
INSERT INTO conversation_counts (project_id, rows)
  SELECT project_id, COUNT(*) FROM conversation_summaries GROUP BY project_id;

CREATE TRIGGER conversation_row_added AFTER INSERT ON conversation_summaries BEGIN
  INSERT OR IGNORE INTO conversation_agents (project_id, agent_name, summary_id)
    SELECT NEW.project_id, value, NEW.id FROM json_each(NEW.agent_names);
  INSERT INTO conversation_counts (project_id, rows) VALUES (NEW.project_id, 1)
    ON CONFLICT (project_id) DO UPDATE SET rows = rows + 1;
END;

CREATE TRIGGER conversation_agents_changed AFTER UPDATE OF agent_names ON conversation_summaries
  WHEN OLD.agent_names IS NOT NEW.agent_names BEGIN
  DELETE FROM conversation_agents WHERE project_id = OLD.project_id AND summary_id = OLD.id
    AND agent_name IN (SELECT value FROM json_each(OLD.agent_names));
  INSERT OR IGNORE INTO conversation_agents (project_id, agent_name, summary_id)
    SELECT NEW.project_id, value, NEW.id FROM json_each(NEW.agent_names);
END;

CREATE TRIGGER conversation_row_removed AFTER DELETE ON conversation_summaries BEGIN
  DELETE FROM conversation_agents WHERE project_id = OLD.project_id AND summary_id = OLD.id
    AND agent_name IN (SELECT value FROM json_each(OLD.agent_names));
  UPDATE conversation_counts SET rows = rows - 1 WHERE project_id = OLD.project_id;
  DELETE FROM conversation_counts WHERE project_id = OLD.project_id AND rows <= 0;
END;
`;
