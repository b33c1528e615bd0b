// Migration 0029: the conversations list filtered by request model from a small table kept by triggers on
// conversation_summaries, as 0026 keeps conversation_agents (issue 19 item 2: "conversations, one model"
// tested every row's request_models list — 1.6 s of CPU, 5.7 s wall at load 12, for 6.2M spans). Kept in
// the transaction that writes, re-aggregates or deletes a row (the summaries upsert with ON CONFLICT DO
// UPDATE, so the update trigger fires). Read by sqlite/conversations.ts; pinned by
// test/unit/conversation-agents.test.ts. Never edit once applied.
export default /* sql */ `
-- One row per (conversation row, model in its request_models): the rows of one model are a range of the key.
CREATE TABLE conversation_models (
  project_id TEXT NOT NULL,
  request_model TEXT NOT NULL,
  summary_id INTEGER NOT NULL,
  PRIMARY KEY (project_id, request_model, summary_id)
) WITHOUT ROWID;

INSERT OR IGNORE INTO conversation_models (project_id, request_model, summary_id)
  SELECT c.project_id, j.value, c.id FROM conversation_summaries c, json_each(c.request_models) j;

CREATE TRIGGER conversation_models_added AFTER INSERT ON conversation_summaries BEGIN
  INSERT OR IGNORE INTO conversation_models (project_id, request_model, summary_id)
    SELECT NEW.project_id, value, NEW.id FROM json_each(NEW.request_models);
END;

CREATE TRIGGER conversation_models_changed AFTER UPDATE OF request_models ON conversation_summaries
  WHEN OLD.request_models IS NOT NEW.request_models BEGIN
  DELETE FROM conversation_models WHERE project_id = OLD.project_id AND summary_id = OLD.id
    AND request_model IN (SELECT value FROM json_each(OLD.request_models));
  INSERT OR IGNORE INTO conversation_models (project_id, request_model, summary_id)
    SELECT NEW.project_id, value, NEW.id FROM json_each(NEW.request_models);
END;

CREATE TRIGGER conversation_models_removed AFTER DELETE ON conversation_summaries BEGIN
  DELETE FROM conversation_models WHERE project_id = OLD.project_id AND summary_id = OLD.id
    AND request_model IN (SELECT value FROM json_each(OLD.request_models));
END;
`;
