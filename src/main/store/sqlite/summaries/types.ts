/** The shapes the summary maintainers share (index.ts gathers them; each part implements one). */
import type { SpanRecord } from '../../../domain/span.js';

/** The fields of a written span the summaries read (the writer passes just these, see sqlite/ingest.ts). */
export type SummarySpan = Pick<
  SpanRecord,
  | 'project_id' | 'trace_id' | 'span_id' | 'parent_span_id' | 'span_name' | 'start_ns' | 'end_ns' | 'status_code'
  | 'provider_name' | 'agent_name' | 'agent_version' | 'operation_name' | 'conversation_id' | 'svc_user_id' | 'input_tokens' | 'output_tokens'
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

/**
 * Traces first seen in a batch, by `project_id\u0000trace_id`, with their spans (the last write of each
 * span id): all the spans they have, so a later pass summarizes them without reading them back.
 */
export type FreshTraces = ReadonlyMap<string, readonly SummarySpan[]>;

export interface SummaryMaintainer {
  /**
   * Called inside the write transaction, after the batch's spans were upserted. The trace pass returns
   * the traces it summarized from the batch alone (`fresh`), which the passes after it are given.
   */
  afterWrite(spans: SummarySpan[], fresh?: FreshTraces): FreshTraces | void;
  /** Recomputes the summaries of these traces from their stored spans (after a delete: from none). */
  refresh(traces: { project_id: string; trace_id: string }[]): void;
  /** Rebuilds the summaries of every stored trace, whose earlier summaries were cleared (at open, after a migration). */
  backfill(traces: { project_id: string; trace_id: string }[]): void;
  /** Bulk path: several batches' afterWrite in one transaction, the rollup layer once at `endGroup` (rollups.ts). */
  beginGroup?(): void;
  /** `apply` false: the group's transaction rolled back. */
  endGroup?(apply?: boolean): void;
}
