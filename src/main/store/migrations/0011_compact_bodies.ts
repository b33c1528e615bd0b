// Migration 0011: span bodies compressed (issue 8 item 5; layout). Written by sqlite/ingest.ts, read
// through the span_details view (decoded by SQL functions that sqlite/bodies.ts registers on every
// connection). Never edit once applied.
export default /* sql */ `
-- Compression dictionaries, made by the ingest encoders from a store's own spans (sqlite/body-codec.ts).
-- hash: the encoder's name for it (a hash of its bytes), so a worker thread can compress with a
-- dictionary before the writer has stored it.
CREATE TABLE dictionaries (
  id INTEGER PRIMARY KEY,
  hash TEXT NOT NULL UNIQUE,
  bytes BLOB NOT NULL
);
-- Resource attributes, once per distinct resource (every span of a service instance shares them).
CREATE TABLE resources (
  id INTEGER PRIMARY KEY,
  attributes TEXT NOT NULL UNIQUE
);
-- The heavy fields of a span in one zstd frame (dict_id 0: no dictionary).
CREATE TABLE span_bodies (
  span_rowid INTEGER PRIMARY KEY REFERENCES spans(id) ON DELETE CASCADE,
  resource_id INTEGER NOT NULL,
  dict_id INTEGER NOT NULL,
  body BLOB NOT NULL
);
-- The rows written before this migration are compressed into span_bodies at the next open
-- (sqlite/bodies.ts), which then drops this table.
ALTER TABLE span_details RENAME TO span_details_legacy;
-- What every reader reads: the same columns as the table it replaces.
CREATE VIEW span_details AS SELECT
  b.span_rowid AS span_rowid,
  loupe_body(b.dict_id, b.body, 'system_instructions') AS system_instructions,
  loupe_body(b.dict_id, b.body, 'tool_definitions') AS tool_definitions,
  loupe_body(b.dict_id, b.body, 'tool_call_arguments') AS tool_call_arguments,
  loupe_body(b.dict_id, b.body, 'tool_call_result') AS tool_call_result,
  loupe_body(b.dict_id, b.body, 'input_messages') AS input_messages,
  loupe_body(b.dict_id, b.body, 'output_messages') AS output_messages,
  (SELECT r.attributes FROM resources r WHERE r.id = b.resource_id) AS resource_attributes,
  loupe_body(b.dict_id, b.body, 'events') AS events,
  loupe_body(b.dict_id, b.body, 'links') AS links,
  loupe_body(b.dict_id, b.body, 'raw_span_dump') AS raw_span_dump
FROM span_bodies b;
INSERT INTO summary_backfill (name) SELECT 'bodies' WHERE EXISTS (SELECT 1 FROM span_details_legacy);
`;
