/**
 * Read summaries maintained at ingest time (issue 3 §7): per-trace (turn) summaries and per-agent
 * summaries, so the chat views, threads and agents list never scan all spans. The ingest writer
 * calls `afterWrite` inside the same transaction as the span upserts, so summaries are never stale
 * or half-written.
 */
import type { Db } from '../open.js';
import { createTraceSummaries } from './traces.js';
import { createAgentSummaries } from './agents.js';

export type { SummaryMaintainer, SummarySpan } from './types.js';
import type { SummaryMaintainer } from './types.js';

const BACKFILL_SQL = {
  // Spans stored before migration 0002 (no trace summaries at all) or 0006 (no conversation rows).
  needed: `SELECT (EXISTS (SELECT 1 FROM spans) AND NOT EXISTS (SELECT 1 FROM trace_summaries))
    OR EXISTS (SELECT 1 FROM summary_backfill WHERE name = 'conversations') AS x`,
  allTraces: `SELECT DISTINCT project_id, trace_id FROM spans`,
  clear: ['DELETE FROM conversation_turns', 'DELETE FROM conversation_summaries', 'DELETE FROM agent_trace_stats', 'DELETE FROM agent_summaries'],
  done: `DELETE FROM summary_backfill WHERE name = 'conversations'`,
} as const;

export function createSummaryMaintainer(db: Db): SummaryMaintainer {
  // Order matters: the trace pass decides spans.counted, which the agent pass sums by.
  const parts = [createTraceSummaries(db), createAgentSummaries(db)];
  const maintainer: SummaryMaintainer = {
    afterWrite: (spans) => parts.forEach((p) => p.afterWrite(spans)),
    refresh: (traces) => parts.forEach((p) => p.refresh(traces)),
    backfill: (traces) => parts.forEach((p) => p.backfill(traces)),
  };
  // A database whose spans predate a summary migration gets every summary rebuilt once, at open.
  if (!db.readonly && db.prepare<[], { x: number }>(BACKFILL_SQL.needed).get()?.x === 1) {
    db.transaction(() => {
      for (const sql of BACKFILL_SQL.clear) db.prepare(sql).run();
      maintainer.backfill(db.prepare<[], { project_id: string; trace_id: string }>(BACKFILL_SQL.allTraces).all());
      db.prepare(BACKFILL_SQL.done).run();
    })();
  }
  return maintainer;
}
