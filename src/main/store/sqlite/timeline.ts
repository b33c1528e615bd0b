import type { Db } from './open.js';

/** One span as the waterfall needs it; times in µs since the epoch (integer division of the stored ns). */
export type TimelineRow = [
  span_id: string,
  parent_span_id: string | null,
  span_name: string,
  operation_name: string | null,
  agent_name: string | null,
  tool_name: string | null,
  request_model: string | null,
  response_model: string | null,
  status_code: 'UNSET' | 'OK' | 'ERROR',
  start_us: number | null,
  end_us: number | null,
  input_tokens: number | null,
  output_tokens: number | null,
  total_cost_usd: number | null,
];

/** Reads of the trace waterfall (traces.timeline). */
export interface TimelineRepo {
  /** Every span of one trace, light columns only, by start (spans without one last), then span_id. */
  traceRows(projectId: string, traceId: string): TimelineRow[];
}

export function createTimelineRepo(db: Db): TimelineRepo {
  // The unique index spans_key (project_id, trace_id, span_id) finds the trace's rows; no span_details
  // join and no JSON columns, so 20,000 rows read in tens of ms. Raw arrays skip building row objects.
  // ns → µs in SQL keeps values under 2^53 (plain JS numbers, no bigint round trip).
  const rows = db
    .prepare(
      `SELECT span_id, parent_span_id, span_name, operation_name, agent_name, tool_name, request_model, response_model,
              status_code, start_ns / 1000, end_ns / 1000, input_tokens, output_tokens, total_cost_usd
         FROM spans
        WHERE project_id = ? AND trace_id = ?
        ORDER BY start_ns IS NULL, start_ns, span_id`,
    )
    .raw(true);
  return {
    traceRows: (projectId, traceId) => rows.all(projectId, traceId) as TimelineRow[],
  };
}
