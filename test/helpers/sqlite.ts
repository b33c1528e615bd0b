import Database from 'better-sqlite3';
import { registerBodyFunctions } from '../../src/main/store/sqlite/bodies.js';
import { registerSearchFunctions } from '../../src/main/store/sqlite/fts.js';
import { JSON_COLUMNS } from '../../src/main/store/sqlite/ingest.js';

/**
 * A connection to a store's file with the adapter's SQL functions, as every store connection has
 * them: `span_details` is a view over compressed bodies (loupe_body), `$search` SQL calls
 * loupe_search_match. A bare `new Database(file)` cannot read those.
 */
export function openStoreFile(file: string, opts: Database.Options = {}): Database.Database {
  const db = new Database(file, opts);
  registerBodyFunctions(db, file);
  registerSearchFunctions(db);
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
