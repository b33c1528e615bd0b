/**
 * What every spans read shares: the current version of each span (FINAL, tombstones dropped), one
 * project, the plan's time window as a partition range too (so a window reads only its days), and
 * the `$expr` condition.
 */
import type { SpanScope } from '../../../domain/plans.js';
import type { ReadOptions } from '../../ports.js';
import type { ClickHouse } from '../connection.js';
import { dayNumber, dayOf, dayText } from '../encode.js';
import { predicate, withProject } from '../expr.js';
import { date, i64, raw, sql, str, type Sql } from '../sql.js';

/** Settings of every FINAL read: a condition moved to PREWHERE would filter row versions before the merge picks the newest. */
export const FINAL_SETTINGS = raw(' SETTINGS optimize_move_to_prewhere = 0');

/** Days that may hold several versions of a span (dirty_days, writer.ts). */
export const DIRTY = raw('(SELECT day FROM dirty_days FINAL WHERE dirty = 1)');

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

/**
 * The same for `span_payloads`, whose rows are written beside the spans' (one payload row per span
 * row, tombstones too), so the days holding several versions of a payload are the spans' dirty days.
 */
export function currentPayloads(where: Sql): Sql {
  return sql`(SELECT * FROM span_payloads FINAL WHERE day IN ${DIRTY} AND ${where}
    UNION ALL SELECT * FROM span_payloads WHERE day NOT IN ${DIRTY} AND ${where})`;
}

export function scopeSql(s: SpanScope): Sql {
  let q = sql`project_id = ${str(s.project_id)} AND deleted = 0`;
  if (s.started_after_ns !== null) q = sql`${q} AND start_ns >= ${i64(s.started_after_ns)}${afterDays(s.started_after_ns)}`;
  if (s.started_before_ns !== null) q = sql`${q} AND start_ns < ${i64(s.started_before_ns)}${beforeDays(s.started_before_ns)}`;
  if (s.where) {
    const w = s.where;
    q = sql`${q} AND ${withProject(s.project_id, () => predicate(w))}`;
  }
  return q;
}

/** Day 0's partition: spans without a start, and those starting before 1970 or after 2149 (encode.ts partitionDay). */
export const DAY_ZERO_TEXT = '1970-01-01';
/** Whether a partition (or a Date the server sent) is day 0 (18.16 prints the zero date: encode.ts dayText). */
export const isDayZero = (partition: string): boolean => dayText(partition) === DAY_ZERO_TEXT;

const DAY_ZERO = date(DAY_ZERO_TEXT);
/** The last day a Date column holds (2149-06-06). */
const LAST_DAY = 0xffff;

/** The partitions that can hold spans starting at or after `ns`: its day and later, and day 0 (spans past 2149). */
function afterDays(ns: bigint): Sql {
  const d = dayNumber(ns);
  if (d <= 0) return raw('');
  if (d > LAST_DAY) return sql` AND day = ${DAY_ZERO}`;
  return sql` AND (day >= ${date(dayOf(ns))} OR day = ${DAY_ZERO})`;
}

/** The partitions that can hold spans starting before `ns`: its day and earlier (day 0 holds those before 1970). */
function beforeDays(ns: bigint): Sql {
  const d = dayNumber(ns);
  if (d > LAST_DAY) return raw('');
  return sql` AND day <= ${d < 0 ? DAY_ZERO : date(dayOf(ns))}`;
}

/** The days (partitions) of `spans` that hold rows, newest first, day 0 included (as system.parts names it). */
export async function spanDays(ch: ClickHouse, opts: ReadOptions): Promise<string[]> {
  const rows = await ch.rows<{ p: string }>(raw("SELECT DISTINCT partition AS p FROM system.parts WHERE database = currentDatabase() AND table = 'spans' AND active"), opts);
  return rows.map((r) => r.p).sort().reverse();
}
