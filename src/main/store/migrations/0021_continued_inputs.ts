// Migration 0021: a model call's input messages that repeat an earlier call's are stored once (issue
// 19 item 3; layout, ingest). Written by sqlite/ingest.ts (service/ingest/history.ts finds the
// continuations), read through the span_details view. Never edit once applied.
export default /* sql */ `
-- input_base: the span (row id) whose input messages this span's continue. Its body's input_messages
-- then holds only the messages after the base's; the whole list is the base's (itself maybe
-- continued) followed by them, which the view puts together (loupe_input_chain walks the bases, at
-- most 32 deep: ingest stores a call whole again after that). NULL: the body holds the whole list.
ALTER TABLE span_bodies ADD COLUMN input_base INTEGER;
CREATE INDEX span_bodies_input_base ON span_bodies (input_base) WHERE input_base IS NOT NULL;
-- A base that goes (deleted: retention, a trace deleted) first hands its messages to the spans that
-- continue it: each gets the base's own tail in front of its own (loupe_splice re-encodes its body)
-- and continues the base's base instead. A base re-imported does the same, from the writer
-- (sqlite/bodies.ts handOver), not from an UPDATE trigger: the splice itself updates span bodies,
-- and a trigger could not tell that update (the same messages, only re-based) from a new content.
CREATE TRIGGER span_bodies_base_deleted BEFORE DELETE ON span_bodies BEGIN
  UPDATE span_bodies SET body = loupe_splice(old.dict_id, old.body, dict_id, body), input_base = old.input_base
  WHERE input_base = old.span_rowid;
END;
DROP VIEW span_details;
CREATE VIEW span_details AS SELECT
  b.span_rowid AS span_rowid,
  loupe_body(b.dict_id, b.body, 'system_instructions') AS system_instructions,
  loupe_body(b.dict_id, b.body, 'tool_definitions') AS tool_definitions,
  loupe_body(b.dict_id, b.body, 'tool_call_arguments') AS tool_call_arguments,
  loupe_body(b.dict_id, b.body, 'tool_call_result') AS tool_call_result,
  CASE WHEN b.input_base IS NULL THEN loupe_body(b.dict_id, b.body, 'input_messages') ELSE (
    WITH RECURSIVE chain(depth, span_rowid, dict_id, body, base) AS (
      SELECT 0, b.span_rowid, b.dict_id, b.body, b.input_base
      UNION ALL SELECT c.depth + 1, x.span_rowid, x.dict_id, x.body, x.input_base
        FROM chain c JOIN span_bodies x ON x.span_rowid = c.base WHERE c.depth < 1000)
    SELECT loupe_input_chain(depth, span_rowid, dict_id, body) FROM chain) END AS input_messages,
  loupe_body(b.dict_id, b.body, 'output_messages') AS output_messages,
  (SELECT r.attributes FROM resources r WHERE r.id = b.resource_id) AS resource_attributes,
  loupe_body(b.dict_id, b.body, 'events') AS events,
  loupe_body(b.dict_id, b.body, 'links') AS links,
  (SELECT loupe_raw_span(b.dict_id, b.body, s.trace_id, s.span_id, s.parent_span_id, CAST(s.start_ns AS TEXT), CAST(s.end_ns AS TEXT),
      CASE WHEN b.input_base IS NULL THEN NULL ELSE (
        WITH RECURSIVE chain(depth, span_rowid, dict_id, body, base) AS (
          SELECT 0, b.span_rowid, b.dict_id, b.body, b.input_base
          UNION ALL SELECT c.depth + 1, x.span_rowid, x.dict_id, x.body, x.input_base
            FROM chain c JOIN span_bodies x ON x.span_rowid = c.base WHERE c.depth < 1000)
        SELECT loupe_input_chain(depth, span_rowid, dict_id, body) FROM chain) END)
     FROM spans s WHERE s.id = b.span_rowid) AS raw_span_dump
FROM span_bodies b;
`;
