// Migration 0015: full-text documents per conversation and write batch, mapped to their traces by a
// span rowid (issue 8 item 5; layout). Written by sqlite/fts.ts at ingest, read by its readers.
// Never edit once applied.
export default /* sql */ `
-- Which traces a document holds the texts of: (document, the trace's first span rowid). A trace's
-- first span rowid names it for as long as it lives (rowids only grow; a trace is deleted whole), in
-- a few bytes instead of (project_id, trace_id) twice. A document (one per conversation, or
-- conversation-less trace, of a write batch) holds several traces.
CREATE TABLE search_doc_traces (
  doc INTEGER NOT NULL,
  trace_rowid INTEGER NOT NULL,
  PRIMARY KEY (doc, trace_rowid)
) WITHOUT ROWID;
CREATE INDEX search_doc_traces_trace ON search_doc_traces (trace_rowid);
-- Documents written before stay as they are (one trace each).
INSERT INTO search_doc_traces (doc, trace_rowid)
  SELECT doc, trace_rowid FROM (
    SELECT sd.doc AS doc, (SELECT MIN(s.id) FROM spans s WHERE s.project_id = sd.project_id AND s.trace_id = sd.trace_id) AS trace_rowid
    FROM search_docs sd)
  WHERE trace_rowid IS NOT NULL;
DROP TABLE search_docs;
`;
