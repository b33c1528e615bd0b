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
>;

export interface SummaryMaintainer {
  /** Called inside the write transaction, after the batch's spans were upserted. */
  afterWrite(spans: SummarySpan[]): void;
}

export function createSummaryMaintainer(db: Db): SummaryMaintainer {
  const parts = [createTraceSummaries(db), createAgentSummaries(db)];
  return { afterWrite: (spans) => parts.forEach((p) => p.afterWrite(spans)) };
}
