import Database from 'better-sqlite3';
import { registerBodyFunctions } from '../../src/main/store/sqlite/bodies.js';
import { registerSearchFunctions } from '../../src/main/store/sqlite/fts.js';

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
