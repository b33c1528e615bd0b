import type { z } from 'zod';
import type { Db } from './open.js';
import type { TimelineColumns } from '../../../shared/contract/timeline.js';

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
  service_name: string | null,
];

/** Reads of the trace waterfall (traces.timeline). */
export interface TimelineRepo {
  /** Every span of one trace, light columns only, by start (spans without one last), then span_id; times µs since the epoch. */
  traceColumns(projectId: string, traceId: string): z.output<typeof TimelineColumns>;
}

/** Stored rows → one array per field (the contract's columnar shape). */
export function toColumns(rows: TimelineRow[]): z.output<typeof TimelineColumns> {
  const n = rows.length;
  const c: z.output<typeof TimelineColumns> = {
    span_id: new Array(n), parent_span_id: new Array(n), span_name: new Array(n), operation_name: new Array(n),
    agent_name: new Array(n), tool_name: new Array(n), request_model: new Array(n), response_model: new Array(n),
    status_code: new Array(n), start_us: new Array(n), end_us: new Array(n), input_tokens: new Array(n),
    output_tokens: new Array(n), total_cost_usd: new Array(n), service_name: new Array(n),
  };
  for (let i = 0; i < n; i++) {
    const r = rows[i]!;
    c.span_id[i] = r[0]; c.parent_span_id[i] = r[1]; c.span_name[i] = r[2]; c.operation_name[i] = r[3];
    c.agent_name[i] = r[4]; c.tool_name[i] = r[5]; c.request_model[i] = r[6]; c.response_model[i] = r[7];
    c.status_code[i] = r[8]; c.start_us[i] = r[9]; c.end_us[i] = r[10];
    c.input_tokens[i] = r[11]; c.output_tokens[i] = r[12]; c.total_cost_usd[i] = r[13]; c.service_name[i] = r[14];
  }
  return c;
}

export function createTimelineRepo(db: Db): TimelineRepo {
  // The unique index spans_key (project_id, trace_id, span_id) finds the trace's rows; no span_details
  // join and no JSON columns, so 20,000 rows read in tens of ms. Raw arrays skip building row objects.
  // ns → µs in SQL keeps values under 2^53 (plain JS numbers, no bigint round trip).
  const rows = db
    .prepare(
      `SELECT span_id, parent_span_id, span_name, operation_name, agent_name, tool_name, request_model, response_model,
              status_code, start_ns / 1000, end_ns / 1000, input_tokens, output_tokens, total_cost_usd, service_name
         FROM spans
        WHERE project_id = ? AND trace_id = ?
        ORDER BY start_ns IS NULL, start_ns, span_id`,
    )
    .raw(true);
  return {
    traceColumns: (projectId, traceId) => toColumns(rows.all(projectId, traceId) as TimelineRow[]),
  };
}
