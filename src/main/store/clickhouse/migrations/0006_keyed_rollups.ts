// ClickHouse migration 0006: span rollups keyed by the five columns a group-by filters and groups on
// (issue 19 item 2, decision 0021; SQLite's 0020). Never edit once applied. ClickHouse 18.16 has no
// ADD COLUMN IF NOT EXISTS: the migrator (migrate.ts) treats "column already exists" as done.
//
// Each unit's row gets four arrays beside agent_name (one element per agent, operation, status,
// model and provider of the unit). Rows written before read NULLs of the right length (so ARRAY JOIN
// stays aligned) until every unit is rolled up again below, at version 2: newer than 0005's
// backfill, older than any writer's stamp, so a unit a writer has recomputed meanwhile keeps its row.
// If rollups.ts changes, freeze this text here as 0003 and 0005 were.
import { ROLLUP_HEAD, ROLLUP_MID, ROLLUP_TAIL } from '../rollups.js';

const nulls = "DEFAULT arrayMap(x -> CAST(NULL AS Nullable(String)), agent_name)";

export default [
  /* sql */ `ALTER TABLE span_rollups ADD COLUMN operation_name Array(Nullable(String)) ${nulls}`,
  /* sql */ `ALTER TABLE span_rollups ADD COLUMN status_code Array(Nullable(String)) ${nulls}`,
  /* sql */ `ALTER TABLE span_rollups ADD COLUMN request_model Array(Nullable(String)) ${nulls}`,
  /* sql */ `ALTER TABLE span_rollups ADD COLUMN provider_name Array(Nullable(String)) ${nulls}`,
  `${ROLLUP_HEAD}2${ROLLUP_MID}1${ROLLUP_TAIL}`,
];
