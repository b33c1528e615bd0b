/**
 * Read summaries maintained at ingest time (issue 3 §7): per-trace (turn) summaries and per-agent
 * summaries, so the chat views, threads and agents list never scan all spans. The ingest writer
 * calls `afterWrite` inside the same transaction as the span upserts, so summaries are never stale
 * or half-written.
 */
import type { Db } from '../open.js';
import { createTraceSummaries } from './traces.js';
import { createAgentSummaries } from './agents.js';
import { createSpanRollups, namesPending, rollupsPending } from './rollups.js';
import { backfillThreads } from './threads.js';

export type { FreshTraces, SummaryMaintainer, SummarySpan } from './types.js';
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
  const traceSummaries = createTraceSummaries(db);
  const agentSummaries = createAgentSummaries(db);
  const parts = [traceSummaries, agentSummaries];
  // The rollups read the conversations a trace had before (its turn rows, which the trace pass
  // rewrites) and the counting bits after (which the trace pass sets): one step on each side.
  const rollups = createSpanRollups(db);
  const tracesOf = (spans: { project_id: string; trace_id: string }[]) => {
    const seen = new Map<string, { project_id: string; trace_id: string }>();
    for (const s of spans) seen.set(`${s.project_id}\u0000${s.trace_id}`, { project_id: s.project_id, trace_id: s.trace_id });
    return [...seen.values()];
  };
  const maintainer: SummaryMaintainer = {
    afterWrite(spans) {
      const traces = tracesOf(spans);
      // The conversations the batch's traces had before it, as the trace pass reads them before it rewrites
      // their trace rows (a trace first seen in the batch has none): no second read per trace for the rollups.
      const old = new Map<string, string[]>();
      const fresh = traceSummaries.afterWrite(spans, old);
      const before = rollups.unitsBefore(traces, old);
      agentSummaries.afterWrite(spans, fresh);
      rollups.recompute(traces, before, fresh);
      return fresh;
    },
    refresh(traces) {
      const before = rollups.unitsBefore(traces);
      parts.forEach((p) => p.refresh(traces));
      rollups.recompute(traces, before);
    },
    backfill(traces) {
      parts.forEach((p) => p.backfill(traces));
      rollups.rebuild();
    },
    beginGroup: () => rollups.deferLayer(),
    endGroup: (apply = true) => rollups.flushLayer(apply),
  };
  // A database whose spans predate a summary migration gets every summary rebuilt once, at open.
  if (!db.readonly && db.prepare<[], { x: number }>(BACKFILL_SQL.needed).get()?.x === 1) {
    db.transaction(() => {
      for (const sql of BACKFILL_SQL.clear) db.prepare(sql).run();
      maintainer.backfill(db.prepare<[], { project_id: string; trace_id: string }>(BACKFILL_SQL.allTraces).all());
      db.prepare(BACKFILL_SQL.done).run();
    })();
  }
  // A store with conversation rows from before migration 0018: their thread statistics, once.
  backfillThreads(db);
  // A store with spans from before migration 0012: every rollup, once, after the summaries above.
  // At 10M spans this takes minutes, once: say so, so a first open after an upgrade is not taken for a hang.
  if (rollupsPending(db)) {
    const t = performance.now();
    console.error('loupe: rebuilding the span rollups from every stored span (once, after an upgrade)…');
    db.transaction(() => rollups.rebuild())();
    console.error(`loupe: span rollups rebuilt in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  // Migration 0031 on a store with spans: the span_name / duration layer from every span, once (the full
  // rebuild above fills it too). Then the days a write left stale (their rows are recomputed at the next
  // write that does not touch them): recomputed now, so a store opened after an import reads kept rows.
  if (namesPending(db)) {
    const t = performance.now();
    console.error('loupe: filling the span_name / duration layer from every stored span (once, after an upgrade)…');
    db.transaction(() => rollups.rebuildNames())();
    console.error(`loupe: span_name / duration layer filled in ${((performance.now() - t) / 1000).toFixed(1)} s`);
  }
  // At most ~5 s of it (a day is ~0.2 s of CPU for 28k spans): a store left with many stale days (a large import in
  // no time order) opens, and recomputes the rest at its next writes. Best effort: the write lock is taken first
  // (IMMEDIATE, so a deferred read could not fail to upgrade when another process — a server beside a CLI import —
  // wrote meanwhile), and a store another connection keeps busy opens anyway: reads take stale days from the spans.
  if (!db.readonly) {
    try {
      db.transaction(() => rollups.cleanStale(undefined, true, 5_000)).immediate();
    } catch (err) {
      if (!(err as { code?: string }).code?.startsWith('SQLITE_BUSY')) throw err;
    }
  }
  return maintainer;
}
