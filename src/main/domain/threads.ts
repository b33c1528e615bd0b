/**
 * A thread (semantics §5) from its turns, and the in-memory order of threads, for every adapter: a
 * thread is a conversation, its turns' durations give the p50/p99, its first and last turns the
 * start and last update.
 */
import { percentile } from '../../shared/stats.js';
import type { Thread } from '../../shared/contract/analytics.js';
import type { z } from 'zod';
import { isoFromUs } from './time.js';
import type { ThreadsPlan } from './plans.js';

type ThreadRow = z.output<typeof Thread>;

/** One turn of a thread as the adapters read it (times in µs since the epoch). */
export interface ThreadTurn {
  trace_id: string;
  start_us: number | null;
  end_us: number | null;
  duration_ms: number | null;
}

export function threadOf(id: string, turns: readonly ThreadTurn[]): ThreadRow | null {
  if (!turns.some((t) => t.end_us != null)) return null; // §5: threads whose turns all lack an end are skipped
  let first: ThreadTurn | null = null;
  let last: ThreadTurn | null = null;
  for (const t of turns) {
    if (t.start_us != null && (!first || first.start_us == null || t.start_us < first.start_us || (t.start_us === first.start_us && t.trace_id < first.trace_id))) first = t;
    if (t.end_us != null && (!last || last.end_us == null || t.end_us > last.end_us || (t.end_us === last.end_us && t.trace_id > last.trace_id))) last = t;
  }
  const durations = turns.map((t) => t.duration_ms).filter((d): d is number => d != null).sort((a, b) => a - b);
  return {
    thread_id: id,
    turn_count: turns.length,
    start_time: first?.start_us != null ? isoFromUs(first.start_us) : null,
    last_updated: last?.end_us != null ? isoFromUs(last.end_us) : null,
    first_turn_id: first?.trace_id ?? null,
    last_turn_id: last?.trace_id ?? null,
    p50_turn_duration_ms: percentile(durations, 0.5),
    p99_turn_duration_ms: percentile(durations, 0.99),
  };
}

/** The plan's page of threads computed in memory (a percentile sort): sorted by the plan's order (nulls first ascending), then sliced. */
export function pageOfThreads(all: ThreadRow[], plan: Pick<ThreadsPlan, 'sort' | 'offset' | 'limit'>): ThreadRow[] {
  const cmp = (a: ThreadRow, b: ThreadRow): number => {
    for (const s of plan.sort) {
      const x = a[s.field as keyof ThreadRow];
      const y = b[s.field as keyof ThreadRow];
      const c = x === y ? 0 : x == null ? -1 : y == null ? 1 : x < y ? -1 : 1;
      if (c) return s.direction === 'asc' ? c : -c;
    }
    return 0;
  };
  return all.sort(cmp).slice(plan.offset, plan.offset + plan.limit);
}
