// Migration 0014: span bodies leave out the ids and times the span's row holds (issue 8 item 5;
// layout). Written by sqlite/ingest.ts (body-codec.ts stripSpanKeys), read through the span_details
// view. Never edit once applied.
export default /* sql */ `
-- The raw span of a body written from now on may carry marks where its traceId, spanId,
-- parentSpanId, startTimeUnixNano and endTimeUnixNano were (only when it printed them exactly as the
-- span's row stores them); loupe_raw_span puts them back from the row. Bodies written before carry
-- no marks and read back unchanged, so nothing is converted.
DROP VIEW span_details;
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
  (SELECT loupe_raw_span(b.dict_id, b.body, s.trace_id, s.span_id, s.parent_span_id, CAST(s.start_ns AS TEXT), CAST(s.end_ns AS TEXT))
     FROM spans s WHERE s.id = b.span_rowid) AS raw_span_dump
FROM span_bodies b;
`;
