import type { Db } from '../open.js';
import type { Statement } from 'better-sqlite3';

/**
 * Query shapes of the spans query vary with the request (filters, sort, measures), so statements
 * are prepared on demand and kept by SQL text. The text holds only catalog identifiers and `?`
 * placeholders, so the number of distinct shapes is bounded by what clients ask; the cap keeps
 * memory flat anyway.
 */
export function statementCache(db: Db, cap = 256): (sql: string) => Statement {
  const cache = new Map<string, Statement>();
  return (sql) => {
    let st = cache.get(sql);
    if (st) {
      cache.delete(sql);
      cache.set(sql, st);
      return st;
    }
    st = db.prepare(sql);
    cache.set(sql, st);
    if (cache.size > cap) cache.delete(cache.keys().next().value!);
    return st;
  };
}
