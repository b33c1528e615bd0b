/**
 * Read summaries maintained at ingest time (issue 3 §7): per-trace (turn) summaries and per-agent
 * summaries, so the chat views, threads and agents list never scan all spans. The ingest writer
 * calls `afterWrite` inside the same transaction as the span upserts, so summaries are never stale
 * or half-written.
 */
import type { Db } from '../open.js';
import type { SpanRecord } from '../../../domain/span.js';
import { createTraceSummaries } from './traces.js';
import { createAgentSummaries } from './agents.js';

/** The fields of a written span the summaries read (the writer passes just these, see sqlite/ingest.ts). */
export type SummarySpan = Pick<
  SpanRecord,
  | 'project_id' | 'trace_id' | 'span_id' | 'parent_span_id' | 'span_name' | 'start_ns' | 'end_ns' | 'status_code'
  | 'provider_name' | 'agent_name' | 'agent_version' | 'conversation_id' | 'svc_user_id' | 'input_tokens' | 'output_tokens'
  | 'reasoning_tokens' | 'cache_creation_input_tokens' | 'cache_read_input_tokens' | 'total_cost_usd'
  | 'request_model' | 'conversation_name'
> & {
  /** spans.counted: the counting rule's bits (1 tokens, 2 cost) and 4/8 for input/output messages. */
  counted: number;
  /**
   * Preview texts of the span's messages when the writer has them (batch spans): the first user
   * text of its input / its non-user output text, null when there is none. Undefined for spans read
   * back from the store, whose texts are fetched only when the span is a preview candidate.
   */
  input_preview?: string | null;
  output_preview?: string | null;
};

export interface SummaryMaintainer {
  /** Called inside the write transaction, after the batch's spans were upserted. */
  afterWrite(spans: SummarySpan[]): void;
  /** Recomputes the summaries of these traces from their stored spans (after a delete: from none). */
  refresh(traces: { project_id: string; trace_id: string }[]): void;
  /** Rebuilds the summaries of every stored trace, whose earlier summaries were cleared (at open, after a migration). */
  backfill(traces: { project_id: string; trace_id: string }[]): void;
}

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
