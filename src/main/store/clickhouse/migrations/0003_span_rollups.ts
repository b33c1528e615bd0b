// ClickHouse migration 0003: span rollups per (unit, agent_name) for group-by agent_name (rollups.ts,
// decision 0012 for the SQLite twin). Never edit once applied. The second statement rolls up the
// spans already stored, with version 0: any row a writer computes later is newer and wins, and two
// migrators running it at once insert equal rows of which ReplacingMergeTree keeps one.
import { ROLLUP_HEAD, ROLLUP_MID, ROLLUP_TABLE, ROLLUP_TAIL } from '../rollups.js';

export default [ROLLUP_TABLE, `${ROLLUP_HEAD}0${ROLLUP_MID}1${ROLLUP_TAIL}`];
