import Database from 'better-sqlite3';
import { registerBodyFunctions } from '../../src/main/store/sqlite/bodies.js';
import { registerSearchFunctions } from '../../src/main/store/sqlite/fts.js';
import { registerRollupFunctions } from '../../src/main/store/sqlite/unit-bits.js';
import { JSON_COLUMNS } from '../../src/main/store/sqlite/ingest.js';
import { ROLLUP_SQL, createSpanRollups } from '../../src/main/store/sqlite/summaries/rollups.js';

/**
 * A connection to a store's file with the adapter's SQL functions, as every store connection has
 * them: `span_details` is a view over compressed bodies (loupe_body), `$search` SQL calls
 * loupe_search_match. A bare `new Database(file)` cannot read those.
 */
export function openStoreFile(file: string, opts: Database.Options = {}): Database.Database {
  const db = new Database(file, opts);
  registerBodyFunctions(db, file);
  registerSearchFunctions(db);
  registerRollupFunctions(db);
  return db;
}

/** The array and map columns of `spans` the writer stores NULL when empty since migration 0025. */
export const NULLABLE_JSON_COLUMNS: readonly string[] = [...JSON_COLUMNS, 'custom_attrs_int'];

/**
 * A column of a fresh store's row as a writer before migration 0025 stored it (for building an older
 * store from a fresh import): an empty array or map column of `spans` was '[]' / '{}', never NULL.
 */
export function asOlderWriter(table: string, column: string): string {
  if (table !== 'spans' || !NULLABLE_JSON_COLUMNS.includes(column)) return column;
  return `IFNULL(${column}, '${column.startsWith('custom_attrs_') ? '{}' : '[]'}')`;
}

/**
 * The conversation rows' agent and model indexes and per-project counts (migrations 0026 and 0029, kept
 * by triggers) compared with what conversation_summaries holds, recomputed here: one row per (row, agent
 * of its agent_names) and per (row, model of its request_models), none dangling, and each project's count
 * of rows. Returns the numbers compared (so a test can assert
 * the premise: something was indexed).
 */
export function conversationIndexDiff(file: string): { kept: unknown; computed: unknown; agentRows: number } {
  const db = new Database(file, { readonly: true });
  try {
    const kept = {
      agents: db.prepare(`SELECT a.project_id, a.agent_name, c.conversation_id, c.kind FROM conversation_agents a
        LEFT JOIN conversation_summaries c ON c.id = a.summary_id AND c.project_id = a.project_id ORDER BY 1, 2, 3, 4`).all(),
      counts: db.prepare('SELECT project_id, rows FROM conversation_counts ORDER BY 1').all(),
      models: db.prepare(`SELECT m.project_id, m.request_model, c.conversation_id, c.kind FROM conversation_models m
        LEFT JOIN conversation_summaries c ON c.id = m.summary_id AND c.project_id = m.project_id ORDER BY 1, 2, 3, 4`).all(),
    };
    const computed = {
      agents: db.prepare(`SELECT DISTINCT c.project_id, j.value AS agent_name, c.conversation_id, c.kind FROM conversation_summaries c, json_each(c.agent_names) j
        ORDER BY 1, 2, 3, 4`).all(),
      counts: db.prepare('SELECT project_id, COUNT(*) AS rows FROM conversation_summaries GROUP BY project_id ORDER BY 1').all(),
      models: db.prepare(`SELECT DISTINCT c.project_id, j.value AS request_model, c.conversation_id, c.kind FROM conversation_summaries c, json_each(c.request_models) j
        ORDER BY 1, 2, 3, 4`).all(),
    };
    return { kept, computed, agentRows: computed.agents.length };
  } finally {
    db.close();
  }
}

/** The name layer (span_name_days, migration 0031) in a comparable order, costs rounded, bitmaps as hex. */
const NAME_LAYER = `SELECT project_id, day, agent_name, operation_name, status_code, request_model, provider_name, span_kind, response_model,
  span_name, dur_bucket, span_count, first_ns, last_ns, last_end_ns, dur_ns, dur_ms_sum, dur_ms_n, dur_ms_min, dur_ms_max, in_tok, out_tok,
  reasoning_tok, cache_creation_tok, cache_read_tok, tok_sum, tok_n, tok_min, tok_max, round(cost, 9) AS cost, round(in_cost, 9) AS in_cost,
  round(out_cost, 9) AS out_cost, cost_n, round(cost_min, 9) AS cost_min, round(cost_max, 9) AS cost_max, agent_versions, conversation_names,
  hex(units) AS units FROM span_name_days
  ORDER BY project_id, day, agent_name, operation_name, status_code, request_model, provider_name, span_kind, response_model, span_name, dur_bucket`;

/**
 * Recomputes every stale day of the name layer from its spans (as the writer does at open or at a later
 * write), then returns the layer and the same layer rebuilt from all spans (rolled back), to compare; and
 * how many days were stale.
 */
export function refillNameDays(file: string): { stale: number; kept: unknown[]; rebuilt: unknown[] } {
  const db = openStoreFile(file);
  try {
    const rollups = createSpanRollups(db);
    const stale = db.transaction(() => rollups.cleanStale(undefined, true))();
    const kept = db.prepare(NAME_LAYER).safeIntegers().all();
    db.exec('BEGIN');
    try {
      for (const sql of ROLLUP_SQL.nameRebuild) db.prepare(sql).run();
      return { stale, kept, rebuilt: db.prepare(NAME_LAYER).safeIntegers().all() };
    } finally {
      db.exec('ROLLBACK');
    }
  } finally {
    db.close();
  }
}
