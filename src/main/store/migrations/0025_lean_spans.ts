// Migration 0025: leaner spans rows (issue 19 item 3, bytes per span; layout). Applied with the
// schema edit allowed (`editsSchema` in index.ts; sqlite/migrate.ts). Pinned by
// test/unit/store-indexes.test.ts and test/unit/lean-spans.test.ts. Never edit once applied.
export default /* sql */ `
-- The count of one agent's spans (the spans list filtered by agent_name, its total) is the agent's
-- summary row (agent_summaries.span_count, the same spans: sqlite/analytics/spans-list.ts); the page
-- already walked spans_project_start. Every other read that filtered on agent_name is answered from
-- the keyed rollups (0020) or reads the table. 33 bytes a span on the history workload.
DROP INDEX spans_project_agent;
-- Array and map columns may be NULL: the writer stores an empty one as NULL (1 byte in the row
-- instead of 3; ~14 bytes a span on the history workload, where most are empty) and readers take
-- NULL as the empty value. Rows written before keep '[]' / '{}', which read the same. Only the NOT
-- NULL constraints and defaults go, which leaves every stored row as it is: the table's definition is
-- edited in place (SQLite's documented procedure for such changes, "Making Other Kinds Of Table
-- Schema Changes"), not rebuilt, so a 10M-span store migrates in no time.
PRAGMA writable_schema = ON;
UPDATE sqlite_schema SET sql =
  replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(sql,
    'finish_reasons TEXT NOT NULL DEFAULT ''[]''', 'finish_reasons TEXT'),
    'request_stop_sequences TEXT NOT NULL DEFAULT ''[]''', 'request_stop_sequences TEXT'),
    'artifact_refs TEXT NOT NULL DEFAULT ''[]''', 'artifact_refs TEXT'),
    'content_refs TEXT NOT NULL DEFAULT ''[]''', 'content_refs TEXT'),
    'object_refs TEXT NOT NULL DEFAULT ''[]''', 'object_refs TEXT'),
    'custom_attrs_bool TEXT NOT NULL DEFAULT ''{}''', 'custom_attrs_bool TEXT'),
    'custom_attrs_int TEXT NOT NULL DEFAULT ''{}''', 'custom_attrs_int TEXT'),
    'custom_attrs_float TEXT NOT NULL DEFAULT ''{}''', 'custom_attrs_float TEXT'),
    'custom_attrs_string TEXT NOT NULL DEFAULT ''{}''', 'custom_attrs_string TEXT'),
    '(never NULL: ''[]'' / ''{}'')', '(NULL when empty since 0025; older rows ''[]'' / ''{}'')')
  WHERE type = 'table' AND name = 'spans';
PRAGMA writable_schema = OFF;
`;

/** Columns the edit left NOT NULL (a spans definition not as 0001 wrote it): none, or the migration fails. */
export const check = /* sql */ `SELECT 'spans columns still NOT NULL: ' || group_concat(name, ', ') FROM pragma_table_info('spans')
  WHERE "notnull" AND name IN ('finish_reasons', 'request_stop_sequences', 'artifact_refs', 'content_refs', 'object_refs',
    'custom_attrs_bool', 'custom_attrs_int', 'custom_attrs_float', 'custom_attrs_string')`;
