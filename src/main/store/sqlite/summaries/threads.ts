/**
 * Thread statistics kept on the conversation rows (migration 0018): what threads.query answers per
 * thread (semantics §5) — last update, first and last turn, exact p50/p99 of the turn durations —
 * computed from the conversation's turn rows by the same rule the reader applied to them before
 * (`threadOf`), whenever conversations.ts re-aggregates the row. A thread page without a time window
 * is then one page of an index, whatever its sort.
 */
import type { Db } from '../open.js';
import { threadOf } from '../../../domain/threads.js';

/** The fields of a turn row the statistics read. */
export interface ThreadTurnRow {
  trace_id: string;
  turn_start_ns: bigint | null;
  root_end_ns: bigint | null;
  duration_ms: bigint | number | null;
}

/** The row's thread columns, in migration 0018's order; all null when threads skip it. */
export type ThreadColumns = [turnEndNs: bigint | null, firstTurnId: string | null, lastTurnId: string | null, p50: number | null, p99: number | null];

export const NO_THREAD: ThreadColumns = [null, null, null, null, null];

const us = (ns: bigint | null) => (ns == null ? null : Number(ns / 1000n));

export function threadColumns(conversationId: string, rows: readonly ThreadTurnRow[]): ThreadColumns {
  const t = threadOf(conversationId, rows.map((r) => ({
    trace_id: r.trace_id, start_us: us(r.turn_start_ns), end_us: us(r.root_end_ns), duration_ms: r.duration_ms == null ? null : Number(r.duration_ms),
  })));
  if (!t) return NO_THREAD;
  const last = rows.find((r) => r.trace_id === t.last_turn_id)!;
  return [last.root_end_ns, t.first_turn_id, t.last_turn_id, t.p50_turn_duration_ms, t.p99_turn_duration_ms];
}

export const THREAD_SUMMARY_SQL = {
  pending: `SELECT 1 FROM summary_backfill WHERE name = 'threads'`,
  conversations: `SELECT project_id, conversation_id FROM conversation_summaries WHERE kind = 'conversation'`,
  turns: `SELECT trace_id, turn_start_ns, root_end_ns, duration_ms FROM conversation_turns WHERE project_id = ? AND conversation_id = ?`,
  set: `UPDATE conversation_summaries SET turn_end_ns = ?, first_turn_id = ?, last_turn_id = ?, p50_turn_ms = ?, p99_turn_ms = ?
    WHERE project_id = ? AND conversation_id = ? AND kind = 'conversation'`,
  done: `DELETE FROM summary_backfill WHERE name = 'threads'`,
} as const;

/** A store's rows from before migration 0018 get their statistics once, at open (one transaction). */
export function backfillThreads(db: Db): void {
  if (db.readonly || !db.prepare(THREAD_SUMMARY_SQL.pending).get()) return;
  const turns = db.prepare(THREAD_SUMMARY_SQL.turns).safeIntegers(true);
  const set = db.prepare(THREAD_SUMMARY_SQL.set);
  db.transaction(() => {
    for (const c of db.prepare(THREAD_SUMMARY_SQL.conversations).all() as { project_id: string; conversation_id: string }[]) {
      set.run(...threadColumns(c.conversation_id, turns.all(c.project_id, c.conversation_id) as ThreadTurnRow[]), c.project_id, c.conversation_id);
    }
    db.prepare(THREAD_SUMMARY_SQL.done).run();
  })();
}
