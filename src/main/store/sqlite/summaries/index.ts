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

export interface SummaryMaintainer {
  /** Called inside the write transaction, after the batch's spans were upserted. */
  afterWrite(spans: SpanRecord[]): void;
}

export function createSummaryMaintainer(db: Db): SummaryMaintainer {
  const parts = [createTraceSummaries(db), createAgentSummaries(db)];
  return { afterWrite: (spans) => parts.forEach((p) => p.afterWrite(spans)) };
}
