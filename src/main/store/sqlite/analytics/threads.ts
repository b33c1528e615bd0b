/**
 * Threads (semantics §5): a thread is a conversation, its turn calls the root spans of its turns.
 * Reads `conversation_turns` (migration 0002, maintained at ingest by the chat stream), never spans.
 *
 * Sorting by a stored aggregate (thread_id, turn_count, start_time, last_updated) pages in SQL and
 * then computes each thread of the page on its own, so the caller can send each line as soon as it
 * is ready. Sorting by a percentile needs every thread's durations first (one ordered pass).
 */
import { dict } from '../../../../shared/dict.js';
import type { Statement } from 'better-sqlite3';
import type { ThreadsPlan } from '../../../domain/plans.js';
import { pageOfThreads, threadOf, type ThreadTurn as Turn } from '../../../domain/threads.js';
import type { ThreadRowOut } from '../../ports.js';

type ThreadRow = ThreadRowOut;
const SQL_SORT: Record<string, string> = dict({ thread_id: 'conversation_id', turn_count: 'turn_count', start_time: 'start_us', last_updated: 'end_us' });

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

export function* queryThreads(prep: (sql: string) => Statement, req: ThreadsPlan): Generator<ThreadRow> {
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
