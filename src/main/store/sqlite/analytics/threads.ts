/**
 * Threads (semantics §5): a thread is a conversation, its turn calls the root spans of its turns.
 * Never reads spans.
 *
 * Without a time window every thread is a conversation row with its statistics kept at ingest
 * (migration 0018, summaries/threads.ts): any sort is one page of an index of
 * conversation_summaries. A time window keeps only some turns, so the statistics are computed from
 * `conversation_turns`: sorting by a stored aggregate (thread_id, turn_count, start_time,
 * last_updated) pages in SQL and then computes each thread of the page on its own; sorting by a
 * percentile needs every thread's durations first (one ordered pass).
 */
import { dict } from '../../../../shared/dict.js';
import { isoFromUs } from '../../../domain/time.js';
import type { Statement } from 'better-sqlite3';
import type { ThreadsPlan } from '../../../domain/plans.js';
import { pageOfThreads, threadOf, type ThreadTurn as Turn } from '../../../domain/threads.js';
import type { ThreadRowOut } from '../../ports.js';

type ThreadRow = ThreadRowOut;
const SQL_SORT: Record<string, string> = dict({ thread_id: 'conversation_id', turn_count: 'turn_count', start_time: 'start_us', last_updated: 'end_us' });
/** The summary column of each sort field (start and end in ns: a finer order than the answer's µs). */
const SUMMARY_SORT: Record<string, string> = dict({
  thread_id: 'conversation_id', turn_count: 'turn_count', start_time: 'first_ns', last_updated: 'turn_end_ns',
  p50_turn_duration_ms: 'p50_turn_ms', p99_turn_duration_ms: 'p99_turn_ms',
});

function whereOf(req: ThreadsPlan): { sql: string; params: unknown[] } {
  const parts = ['project_id = ?'];
  const params: unknown[] = [req.project_id];
  if (req.after_ns !== null) {
    parts.push('turn_start_ns > ?');
    params.push(req.after_ns);
  }
  if (req.before_ns !== null) {
    parts.push('turn_start_ns < ?');
    params.push(req.before_ns);
  }
  if (req.thread_ids) {
    parts.push(req.thread_ids.length ? `conversation_id IN (${req.thread_ids.map(() => '?').join(', ')})` : '0');
    params.push(...req.thread_ids);
  }
  return { sql: parts.join(' AND '), params };
}

const TURN_COLS = 'trace_id, turn_start_ns / 1000 AS start_us, root_end_ns / 1000 AS end_us, duration_ms';

/** The SQL of a threads request: the page of conversations and the turns of one of them (aggregate sorts). */
export function threadsSql(req: ThreadsPlan) {
  const sort = req.sort;
  const where = whereOf(req);
  // The plan's order ends with thread_id: the tie-breaker is part of it.
  const order = sort.map((s) => `${SQL_SORT[s.field] ?? 'conversation_id'} ${s.direction === 'asc' ? 'ASC' : 'DESC'}`).join(', ');
  return {
    sort,
    where,
    inSql: sort.every((s) => SQL_SORT[s.field]),
    page: `SELECT conversation_id, COUNT(*) AS turn_count, MIN(turn_start_ns) / 1000 AS start_us, MAX(root_end_ns) / 1000 AS end_us
         FROM conversation_turns WHERE ${where.sql} GROUP BY conversation_id HAVING MAX(root_end_ns) IS NOT NULL
        ORDER BY ${order} LIMIT ? OFFSET ?`,
    turns: `SELECT conversation_id, ${TURN_COLS} FROM conversation_turns WHERE ${where.sql} AND conversation_id IN (?, ?)`,
    all: `SELECT conversation_id, ${TURN_COLS} FROM conversation_turns WHERE ${where.sql} ORDER BY conversation_id`,
  };
}

const THREAD_CHUNK = 256;
const turnsOfMany = (where: string, n: number) =>
  `SELECT conversation_id, ${TURN_COLS} FROM conversation_turns WHERE ${where} AND conversation_id IN (${Array(n).fill('?').join(', ')})`;

/** The page of threads from the conversation rows (no time window), or null when a window needs the turns. */
export function threadSummarySql(req: ThreadsPlan): { sql: string; params: unknown[] } | null {
  if (req.after_ns !== null || req.before_ns !== null) return null;
  const params: unknown[] = [req.project_id];
  let ids = '';
  if (req.thread_ids) {
    ids = req.thread_ids.length ? ` AND conversation_id IN (${req.thread_ids.map(() => '?').join(', ')})` : ' AND 0';
    params.push(...req.thread_ids);
  }
  const order = req.sort.map((s) => `${SUMMARY_SORT[s.field]!} ${s.direction === 'asc' ? 'ASC' : 'DESC'}`).join(', ');
  return {
    sql: `SELECT conversation_id, turn_count, first_ns, turn_end_ns, first_turn_id, last_turn_id, p50_turn_ms, p99_turn_ms
      FROM conversation_summaries WHERE project_id = ? AND kind = 'conversation' AND turn_end_ns IS NOT NULL${ids}
      ORDER BY ${order} LIMIT ? OFFSET ?`,
    params: [...params, req.limit, req.offset],
  };
}

interface SummaryRow {
  conversation_id: string;
  turn_count: number;
  first_ns: bigint | null;
  turn_end_ns: bigint;
  first_turn_id: string | null;
  last_turn_id: string | null;
  p50_turn_ms: number | null;
  p99_turn_ms: number | null;
}

const isoOfNs = (ns: bigint | null) => (ns == null ? null : isoFromUs(Number(ns / 1000n)));

export function* queryThreads(prep: (sql: string) => Statement, req: ThreadsPlan): Generator<ThreadRow> {
  const summary = threadSummarySql(req);
  if (summary) {
    // All rows first (≤ 10,000): the caller may read on this connection between lines.
    for (const r of prep(summary.sql).safeIntegers(true).all(...summary.params) as SummaryRow[]) {
      yield {
        thread_id: r.conversation_id,
        turn_count: Number(r.turn_count),
        start_time: isoOfNs(r.first_ns),
        last_updated: isoOfNs(r.turn_end_ns),
        first_turn_id: r.first_turn_id,
        last_turn_id: r.last_turn_id,
        p50_turn_duration_ms: r.p50_turn_ms,
        p99_turn_duration_ms: r.p99_turn_ms,
      };
    }
    return;
  }
  const q = threadsSql(req);
  const { where } = q;
  if (q.inSql) {
    const page = prep(q.page).pluck().all(...where.params, req.limit, req.offset) as string[];
    // The page's turns are read a chunk of threads at a time: few statements, and the first lines
    // are ready after one small query.
    for (let i = 0; i < page.length; i += THREAD_CHUNK) {
      const ids = page.slice(i, i + THREAD_CHUNK);
      const rows = prep(turnsOfMany(where.sql, ids.length)).all(...where.params, ...ids) as (Turn & { conversation_id: string })[];
      const byId = new Map<string, Turn[]>();
      for (const r of rows) {
        const list = byId.get(r.conversation_id);
        if (list) list.push(r);
        else byId.set(r.conversation_id, [r]);
      }
      for (const id of ids) {
        const t = threadOf(id, byId.get(id) ?? []);
        if (t) yield t;
      }
    }
    return;
  }
  // Percentile sort: one pass over the turns in conversation order, then sort in memory.
  const rows = prep(q.all).all(...where.params) as (Turn & { conversation_id: string })[];
  const all: ThreadRow[] = [];
  for (let i = 0; i < rows.length; ) {
    let j = i;
    while (j < rows.length && rows[j]!.conversation_id === rows[i]!.conversation_id) j++;
    const t = threadOf(rows[i]!.conversation_id, rows.slice(i, j));
    if (t) all.push(t);
    i = j;
  }
  yield* pageOfThreads(all, req);
}
