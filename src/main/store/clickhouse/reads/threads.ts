/**
 * Threads (semantics §5) from thread_turns (conversation_turns' turn rows with the columns a thread needs,
 * in 128-row granules: migration 0013): a page of conversations sorted by a stored
 * aggregate in SQL, then each page thread's turns (percentiles and first/last turn in JS, the same
 * function as the SQLite adapter: domain/threads.ts); a percentile sort reads every thread's turns once.
 */
import type { ThreadsPlan } from '../../../domain/plans.js';
import type { ReadOptions, ThreadRowOut } from '../../ports.js';
import { pageOfThreads, threadOf } from '../../../domain/threads.js';
import type { ClickHouse } from '../connection.js';
import { dir, i64, ident, join, limit, raw, sql, str, type Sql } from '../sql.js';
import { FINAL_SETTINGS, isDayZero, spanDays } from './scope.js';

const SQL_SORT: Record<string, string> = { thread_id: 'conversation_id', turn_count: 'turn_count', start_time: 'start_ns', last_updated: 'end_ns' };
const CHUNK = 256;

function whereOf(p: ThreadsPlan): Sql {
  let q = sql`project_id = ${str(p.project_id)} AND deleted = 0`;
  if (p.after_ns !== null) q = sql`${q} AND turn_start_ns > ${i64(p.after_ns)}`;
  if (p.before_ns !== null) q = sql`${q} AND turn_start_ns < ${i64(p.before_ns)}`;
  if (p.thread_ids) q = p.thread_ids.length ? sql`${q} AND conversation_id IN (${join(p.thread_ids.map((t) => sql`${str(t)}`), ', ')})` : sql`${q} AND 0`;
  return q;
}

type TurnJson = { conversation_id: string; trace_id: string; start_ns: string | null; end_ns: string | null; duration_ms: string | null };
const us = (ns: string | null) => (ns == null ? null : Number(BigInt(ns) / 1000n));
const turnsOf = (rows: TurnJson[]) => {
  const by = new Map<string, { trace_id: string; start_us: number | null; end_us: number | null; duration_ms: number | null }[]>();
  for (const r of rows) {
    const t = { trace_id: r.trace_id, start_us: us(r.start_ns), end_us: us(r.end_ns), duration_ms: r.duration_ms == null ? null : Number(r.duration_ms) };
    const list = by.get(r.conversation_id);
    if (list) list.push(t);
    else by.set(r.conversation_id, [t]);
  }
  return by;
};

/** The default order (last updated first) of the whole list: no window, no thread ids. */
const newestFirst = (plan: ThreadsPlan): boolean =>
  plan.after_ns === null && plan.before_ns === null && plan.thread_ids === null && plan.sort[0]?.field === 'last_updated' && plan.sort[0].direction === 'desc';

const DAY_NS = 86_400_000_000_000n;

/**
 * The page in the default order from the threads whose turns ended on the newest days only (thread_ends,
 * migration 0012: per project and day of a turn's root end, a superset of the conversations that ended that
 * day): their turns are read by key and sorted exactly as the whole list would be, and the page is kept when
 * its last thread was updated at or after the first instant of the oldest day read — every thread left out
 * ended before it. Else the window widens (four days, then the whole list). The days tried are those of the
 * spans' partitions (a root's end is never before its start's day).
 */
async function newestPage(
  ch: ClickHouse,
  plan: ThreadsPlan,
  where: Sql,
  pageOf: (w: Sql, offset: number, count: number) => Promise<{ conversation_id: string; end_ns: string | null }[]>,
  opts: ReadOptions,
): Promise<{ conversation_id: string }[]> {
  const need = plan.offset + plan.limit;
  if (need === 0) return [];
  const days = (await spanDays(ch, opts)).filter((p) => !isDayZero(p));
  for (const n of [1, 4]) {
    if (n > days.length) break;
    const from = BigInt(Date.parse(`${days[n - 1]}T00:00:00Z`)) * 1_000_000n;
    const rows = await pageOf(
      sql`${where} AND conversation_id IN (SELECT conversation_id FROM thread_ends WHERE project_id = ${str(plan.project_id)} AND end_day >= ${i64(from / DAY_NS)})`,
      0,
      need,
    );
    const last = rows[rows.length - 1];
    if (rows.length === need && last!.end_ns !== null && BigInt(last!.end_ns) >= from) return rows.slice(plan.offset);
  }
  return pageOf(where, plan.offset, plan.limit);
}

export async function* threads(ch: ClickHouse, plan: ThreadsPlan, opts: ReadOptions): AsyncGenerator<ThreadRowOut> {
  const where = whereOf(plan);
  const turnsSql = (extra: Sql) =>
    sql`SELECT conversation_id, trace_id, turn_start_ns AS start_ns, root_end_ns AS end_ns, duration_ms
        FROM thread_turns FINAL WHERE ${where}${extra}${FINAL_SETTINGS}`;
  if (plan.sort.every((s) => SQL_SORT[s.field])) {
    const order = join(plan.sort.map((s) => sql`${ident(SQL_SORT[s.field]!)}${dir(s.direction)}`), ', ');
    const pageOf = (w: Sql, offset: number, count: number) =>
      ch.rows<{ conversation_id: string; end_ns: string | null }>(
        sql`SELECT conversation_id, count() AS turn_count, min(turn_start_ns) AS start_ns, max(root_end_ns) AS end_ns
            FROM thread_turns FINAL WHERE ${w} GROUP BY conversation_id HAVING isNotNull(end_ns)
            ORDER BY ${order}${limit(offset, count)}${FINAL_SETTINGS}`,
        opts,
      );
    const page = newestFirst(plan) ? await newestPage(ch, plan, where, pageOf, opts) : await pageOf(where, plan.offset, plan.limit);
    for (let i = 0; i < page.length; i += CHUNK) {
      const ids = page.slice(i, i + CHUNK).map((r) => r.conversation_id);
      const by = turnsOf(await ch.rows<TurnJson>(turnsSql(sql` AND conversation_id IN (${join(ids.map((c) => sql`${str(c)}`), ', ')})`), opts));
      for (const id of ids) {
        const t = threadOf(id, by.get(id) ?? []);
        if (t) yield t;
      }
    }
    return;
  }
  // A percentile sort: every thread's turns, then sort in memory.
  const by = turnsOf(await ch.rows<TurnJson>(turnsSql(raw('')), opts));
  const all: ThreadRowOut[] = [];
  for (const [id, turns] of by) {
    const t = threadOf(id, turns);
    if (t) all.push(t);
  }
  yield* pageOfThreads(all, plan);
}
