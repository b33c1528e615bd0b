/**
 * What every spans read shares: the current version of each span (FINAL, tombstones dropped), one
 * project, the plan's time window as a partition range too (so a window reads only its days), and
 * the `$expr` condition.
 */
import type { SpanScope } from '../../../domain/plans.js';
import { dayOf } from '../encode.js';
import { predicate, withProject } from '../expr.js';
import { date, i64, raw, sql, str, type Sql } from '../sql.js';

/** Settings of every FINAL read: a condition moved to PREWHERE would filter row versions before the merge picks the newest. */
export const FINAL_SETTINGS = raw(' SETTINGS optimize_move_to_prewhere = 0');

/** Days that may hold several versions of a span (dirty_days, writer.ts). */
const DIRTY = raw('(SELECT day FROM dirty_days FINAL WHERE dirty = 1)');

/**
 * The current spans a scan reads, as a subquery: versions merged (FINAL) only in dirty days, the
 * other days read as stored — merging costs ~10× a plain read on ClickHouse 18.16. Both halves carry
 * the condition, so each reads only its partitions and matching rows; the outer query reads only
 * the columns it names (ClickHouse prunes `SELECT *` in subqueries).
 */
export function currentSpans(where: Sql): Sql {
  return sql`(SELECT * FROM spans FINAL WHERE day IN ${DIRTY} AND ${where}
    UNION ALL SELECT * FROM spans WHERE day NOT IN ${DIRTY} AND ${where})`;
}

export function scopeSql(s: SpanScope): Sql {
  let q = sql`project_id = ${str(s.project_id)} AND deleted = 0`;
  if (s.started_after_ns !== null) q = sql`${q} AND start_ns >= ${i64(s.started_after_ns)} AND day >= ${date(dayOf(s.started_after_ns))}`;
  if (s.started_before_ns !== null) q = sql`${q} AND start_ns < ${i64(s.started_before_ns)} AND day <= ${date(dayOf(s.started_before_ns))}`;
  if (s.where) {
    const w = s.where;
    q = sql`${q} AND ${withProject(s.project_id, () => predicate(w))}`;
  }
  return q;
}
