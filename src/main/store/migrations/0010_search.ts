// Migration 0010: full-text search (issue 8 item 4; layout). Maintained at ingest (sqlite/ingest.ts →
// sqlite/fts.ts) and on deletes (sqlite/retention.ts). Never edit once applied.
export default /* sql */ `
-- One document per (trace, write batch): the distinct searchable texts (semantics of $search: message
-- texts, tool arguments and results, string attribute values) of the batch's spans of that trace.
-- Trigram tokens, so any substring of 3+ characters is a query; detail=none (no positions: a
-- third of the size of detail=full), so a query is the AND of the needle's trigrams — a superset
-- that the reader verifies against the spans' texts. Contentless: the texts are in span_details.
CREATE VIRTUAL TABLE search_text USING fts5(
  text, tokenize = 'trigram', detail = none, content = '', contentless_delete = 1
);
-- Which trace a document belongs to (search → traces) and a trace's documents (deletes).
CREATE TABLE search_docs (
  doc INTEGER PRIMARY KEY,
  project_id TEXT NOT NULL,
  trace_id TEXT NOT NULL
);
CREATE INDEX search_docs_trace ON search_docs (project_id, trace_id);
-- Spans stored before this migration are indexed once, at the next open (sqlite/fts.ts).
INSERT INTO summary_backfill (name) SELECT 'search' WHERE EXISTS (SELECT 1 FROM spans);
`;
